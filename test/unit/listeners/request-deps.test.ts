import type { Context } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { narrowed, requestDeps } from '../../../src/slack/listeners/request-deps.js';

/**
 * One Bolt app serves every tenant (issue 43): a listener registered once is built from the deps of the
 * request it serves, for that request, so nothing of a tenant's is kept by the listener between requests
 * (what a tenant keeps lives in its deps).
 */
interface Deps {
  name: string;
  assistant?: { title: string };
}

const alpha: Deps = { name: 'alpha', assistant: { title: 'Alpha' } };
const beta: Deps = { name: 'beta' };
/** The request's tenant rides on its context here (the edge app reads it from the request it processes). */
const request = (deps: Deps | undefined) => ({ context: { deps } as unknown as Context });
const depsOf = (context: Context) => (context as unknown as { deps: Deps }).deps;

describe('a listener registered once, built from each request’s deps', () => {
  it('builds the callback per request from its deps, and keeps nothing of it afterwards', async () => {
    const deps = requestDeps(depsOf);
    const built: string[] = [];
    const served: string[] = [];
    const listener = deps.each((d: Deps) => {
      built.push(d.name);
      let count = 0; // state of the callback's own: gone with the request
      return async () => {
        count++;
        served.push(`${d.name}#${count}`);
      };
    });
    await listener(request(alpha));
    await listener(request(beta));
    await listener(request(alpha));
    expect(built).toEqual(['alpha', 'beta', 'alpha']);
    expect(served).toEqual(['alpha#1', 'beta#1', 'alpha#1']);
  });

  it('runs nothing for a request without such deps', async () => {
    const deps = requestDeps(depsOf);
    const served: string[] = [];
    const listener = deps.each((d: Deps) => async () => void served.push(d.name));
    await listener(request(undefined));
    await listener(request(beta));
    expect(served).toEqual(['beta']);
  });

  it('narrows per request: a tenant without the assistant surface reaches none of its listeners', async () => {
    const assistant = narrowed(requestDeps(depsOf), (d) =>
      d.assistant ? (d as Deps & Required<Pick<Deps, 'assistant'>>) : undefined,
    );
    const titles: string[] = [];
    const listener = assistant.each((d) => async () => void titles.push(d.assistant.title));
    await listener(request(beta));
    await listener(request(alpha));
    await listener(request(alpha));
    expect(titles).toEqual(['Alpha', 'Alpha']);
    expect(assistant.of(request(beta).context)).toBeUndefined();
    // Narrowing copies nothing: the request's own deps, their assistant known to be there.
    expect(assistant.of(request(alpha).context)).toBe(alpha);
  });
});
