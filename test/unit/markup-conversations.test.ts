import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { followUpPrompt, isAside, mentionsUser, stripMention } from '../../src/jobs/domain/message-text.js';
import { escapeMrkdwn, slackToPlainText } from '../../src/slack/markup.js';
import { UserNames } from '../../src/slack/user-names.js';

const logger = createLogger({ level: 'silent', secrets: [], destination: { write: () => undefined } });

describe('slackToPlainText', () => {
  const names: Record<string, string> = { U0BOB: 'Bob' };
  const convert = (text: string) => slackToPlainText(text, (id) => names[id]);

  it('turns user mentions into @names, falling back to the id', () => {
    expect(convert('ask <@U0BOB> or <@U0NOBODY>')).toBe('ask @Bob or @U0NOBODY');
    expect(convert('<@U0BOB|bobby> hi')).toBe('@bobby hi');
  });

  it('turns labelled links into "label (url)" and bare links into the url', () => {
    expect(convert('see <https://x.example/a?b=1&amp;c=2|the spec>')).toBe(
      'see the spec (https://x.example/a?b=1&c=2)',
    );
    expect(convert('<https://x.example/raw>')).toBe('https://x.example/raw');
    expect(convert('<mailto:docs@acme.test|docs@acme.test>')).toBe('docs@acme.test');
  });

  it('renders channels, special mentions and user groups readably', () => {
    expect(convert('<#C123|general> <!here> <!channel> <!subteam^S1|@writers>')).toBe(
      '#general @here @channel @writers',
    );
  });

  it('decodes entities last, so escaped brackets stay text', () => {
    expect(convert('a &lt;b&gt; &amp;&amp; c')).toBe('a <b> && c');
    expect(convert('&lt;@U0BOB&gt;')).toBe('<@U0BOB>');
  });

  it('escapeMrkdwn is undone by decoding', () => {
    const text = '<!channel> & <@U1>';
    expect(slackToPlainText(escapeMrkdwn(text))).toBe(text);
  });
});

describe('messages addressed to the bot', () => {
  it('strips every mention of the bot, and only the bot', () => {
    expect(stripMention('<@U0BOT> fix it', 'U0BOT')).toBe('fix it');
    expect(stripMention('<@U0BOT|docs-agent>: fix <@U0BOB> too <@U0BOT>', 'U0BOT')).toBe('fix <@U0BOB> too');
    expect(stripMention('hi <@U0BOT>, please', 'U0BOT')).toBe('hi please');
  });

  it('recognises a mention of the bot', () => {
    expect(mentionsUser('hey <@U0BOT> there', 'U0BOT')).toBe(true);
    expect(mentionsUser('hey <@U0BOTX> there', 'U0BOT')).toBe(false);
    expect(mentionsUser('hey', undefined)).toBe(false);
  });

  it('treats (aside) and // at the start as asides', () => {
    expect(isAside('(aside) not for the agent')).toBe(true);
    expect(isAside('(Aside) nor this')).toBe(true);
    expect(isAside('  // nor this')).toBe(true);
    expect(isAside('see https://x.example // not an aside')).toBe(false);
    expect(isAside('an (aside) later')).toBe(false);
  });

  it('attributes a follow-up to its author', () => {
    expect(followUpPrompt('Bob', 'add an example')).toBe(
      "Follow-up from @Bob in the job's Slack thread:\n\nadd an example",
    );
  });
});

describe('UserNames', () => {
  it('resolves mentions through the lookup, caching hits and misses', async () => {
    const calls: string[] = [];
    let now = 0;
    const names = new UserNames(
      async (id) => {
        calls.push(id);
        return id === 'U0BOB' ? { name: 'Bob' } : undefined;
      },
      { logger, ttlMs: 1000, missTtlMs: 100, now: () => now },
    );
    expect(await names.toPlainText('<@U0BOB> and <@U0GHOST>, <@U0BOB>')).toBe('@Bob and @U0GHOST, @Bob');
    expect(await names.displayName('U0BOB')).toBe('Bob');
    expect(calls.sort()).toEqual(['U0BOB', 'U0GHOST']);
    now = 500; // the miss expired, the hit did not
    expect(await names.displayName('U0GHOST')).toBe('U0GHOST');
    expect(await names.displayName('U0BOB')).toBe('Bob');
    expect(calls.sort()).toEqual(['U0BOB', 'U0GHOST', 'U0GHOST']);
  });

  it('falls back to the id when the lookup fails', async () => {
    const names = new UserNames(
      async () => {
        throw new Error('slack down');
      },
      { logger },
    );
    expect(await names.toPlainText('ping <@U0BOB>')).toBe('ping @U0BOB');
  });
});
