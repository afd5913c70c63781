import { emoji, escapeHtml, mrkdwn, renderBlocks } from './render-blocks.js';
import { BOT_USER, type DemoMessage, type StandInSlack } from './stand-in-slack.js';

function messageHtml(slack: StandInSlack, m: DemoMessage, inThread: boolean): string {
  const author = m.user === BOT_USER ? 'Docs Agent' : 'Alex Rivera';
  const badge = m.user === BOT_USER ? '<span class="app">APP</span>' : '';
  const only = m.ephemeral ? '<div class="only-you">Only visible to you</div>' : '';
  const body = m.blocks?.length ? renderBlocks(m.blocks) : `<div class="b-section">${mrkdwn(m.text)}</div>`;
  const reactions = m.reactions.map((r) => `<span class="reaction">${emoji(r)} 1</span>`).join('');
  const unfurls = Object.entries(m.unfurls ?? {})
    .map(([url, u]) => {
      const blocks = (u as { blocks?: unknown[] }).blocks;
      return `<div class="unfurl" data-url="${escapeHtml(url)}">${blocks ? renderBlocks(blocks) : ''}</div>`;
    })
    .join('');
  const replies = inThread ? [] : slack.messages.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts);
  const thread =
    inThread || m.ephemeral
      ? ''
      : `<details class="thread" data-thread="${escapeHtml(m.ts)}"${replies.length ? ' open' : ''}><summary>${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}</summary>${replies.map((r) => messageHtml(slack, r, true)).join('')}<form class="reply" data-thread="${escapeHtml(m.ts)}"><input name="text" placeholder="Reply in thread…" autocomplete="off"><button>Send</button></form></details>`;
  return `<div class="msg${m.ephemeral ? ' ephemeral' : ''}" data-ts="${escapeHtml(m.ts)}"><div class="avatar">${m.user === BOT_USER ? '📘' : 'A'}</div><div class="content"><div class="author">${author} ${badge}</div>${only}<div class="blocks">${body}</div>${unfurls}${reactions ? `<div class="reactions">${reactions}</div>` : ''}${thread}</div></div>`;
}

/** The live part of the page: channel, App Home, modal and the recorded Web API calls. */
export function fragment(slack: StandInSlack): string {
  const top = slack.messages.filter((m) => !m.thread_ts || m.thread_ts === m.ts);
  const channel =
    top.map((m) => messageHtml(slack, m, false)).join('') ||
    '<p class="empty">No messages yet. Try a command below.</p>';
  const home = slack.home
    ? renderBlocks((slack.home.blocks as unknown[]) ?? [])
    : '<p class="empty">Open App Home to see it.</p>';
  const modal = slack.modal
    ? `<div class="modal-backdrop"><form class="modal" data-surface="modal"><div class="modal-title">${escapeHtml(String((slack.modal.title as { text?: string })?.text ?? ''))}</div>${renderBlocks((slack.modal.blocks as unknown[]) ?? [])}${Object.entries(
        slack.modalErrors,
      )
        .map(
          ([block, error]) =>
            `<div class="error" data-block="${escapeHtml(block)}">${escapeHtml(error)}</div>`,
        )
        .join(
          '',
        )}<div class="modal-actions"><button type="button" class="btn" data-close>Cancel</button><button class="btn primary" type="submit">${escapeHtml(String((slack.modal.submit as { text?: string })?.text ?? 'Submit'))}</button></div></form></div>`
    : '';
  const calls = slack.calls
    .slice(-40)
    .reverse()
    .map((c) => `<li><code>${escapeHtml(c.method)}</code> <span>${escapeHtml(c.summary)}</span></li>`)
    .join('');
  return `<section id="channel" class="pane">${channel}</section><section id="home" class="pane" data-surface="home">${home}</section>${modal}<aside id="calls"><h2>Web API calls the bot made</h2><ol>${calls}</ol></aside>`;
}

export function pageHtml(slack: StandInSlack): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs-agent playground</title><meta name="viewport" content="width=device-width"><style>${CSS}</style></head><body><header><b>Acme</b> · <button class="tab active" data-tab="channel"># docs</button><button class="tab" data-tab="home">Docs Agent · Home</button><span class="note">Playground: stand-in Slack and docs platform, no account needed</span></header><main id="live" class="show-channel">${fragment(slack)}</main><form id="composer"><input name="text" placeholder="Message #docs — try /docs-agent Fix the typo on the quickstart page, /docs-views or /docs-health" autocomplete="off"><button>Send</button></form><script>${SCRIPT}</script></body></html>`;
}

const CSS = `body{font:15px/1.45 -apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;color:#1d1c1d;background:#fff}header{background:#3f0e40;color:#fff;padding:8px 16px;display:flex;gap:12px;align-items:center}.tab{background:none;border:0;color:#ddd;font:inherit;cursor:pointer}.tab.active{color:#fff;font-weight:700;text-decoration:underline}.note{margin-left:auto;font-size:12px;opacity:.8}main{display:grid;grid-template-columns:1fr 340px;height:calc(100vh - 110px)}.pane{overflow:auto;padding:12px 20px}main.show-channel #home,main.show-home #channel{display:none}#calls{border-left:1px solid #ddd;overflow:auto;font-size:12px;padding:8px;background:#f8f8f8}#calls h2{font-size:13px}#calls li{margin:4px 0;word-break:break-all}.msg{display:flex;gap:10px;padding:8px 0}.msg.ephemeral{background:#f4f8fc}.avatar{width:36px;height:36px;border-radius:6px;background:#e8e8e8;display:flex;align-items:center;justify-content:center;flex:none}.content{flex:1;min-width:0}.author{font-weight:700}.app{font-size:10px;background:#ddd;padding:1px 3px;border-radius:3px;font-weight:400}.only-you{font-size:12px;color:#616061}.b-header{font-size:18px;font-weight:800;margin:4px 0}.b-section{display:flex;gap:8px;margin:4px 0}.section-text{flex:1}.fields{display:grid;grid-template-columns:1fr 1fr;gap:4px 16px;margin-top:4px}.b-context{font-size:12px;color:#616061;margin:4px 0}.b-divider{border:0;border-top:1px solid #ddd}.b-actions{display:flex;gap:8px;flex-wrap:wrap;margin:6px 0}.btn{border:1px solid #bbb;background:#fff;border-radius:4px;padding:4px 12px;font:inherit;font-weight:700;cursor:pointer;color:#1d1c1d;text-decoration:none;font-size:14px}.btn.primary{background:#007a5a;color:#fff;border-color:#007a5a}.btn.danger{color:#e01e5a}.select{font:inherit;padding:3px}code{background:#f2f2f2;color:#c01343;padding:0 3px;border-radius:3px}pre{background:#f8f8f8;border:1px solid #ddd;padding:6px}blockquote{border-left:4px solid #ddd;margin:0;padding-left:8px}.mention{background:#e8f5fa;color:#1264a3}a{color:#1264a3}.thread{margin-top:4px;border-left:3px solid #e8e8e8;padding-left:10px}.thread summary{color:#1264a3;font-size:13px;cursor:pointer}.reply,#composer{display:flex;gap:8px;margin:6px 0}.reply input,#composer input{flex:1;padding:8px;border:1px solid #bbb;border-radius:6px;font:inherit}#composer{padding:8px 16px;border-top:1px solid #ddd;margin:0}.reaction{border:1px solid #1264a3;border-radius:12px;padding:0 6px;font-size:12px;margin-right:4px;background:#e8f5fa}.unfurl{border-left:4px solid #ddd;padding-left:10px;margin:6px 0}.chart{margin:8px 0;border:1px solid #e8e8e8;border-radius:8px;padding:8px;max-width:640px}.chart-title{font-weight:700;margin-bottom:6px}.plot{display:flex;align-items:flex-end;gap:6px;height:160px;border-bottom:1px solid #bbb}.group{flex:1;display:flex;flex-direction:column;height:100%}.cols{flex:1;display:flex;align-items:flex-end;gap:2px}.col{flex:1;min-height:1px}.cat{font-size:10px;color:#616061;text-align:center;height:14px;overflow:hidden}.legends{font-size:12px;margin-top:16px}.legend{margin-right:10px}.swatch{display:inline-block;width:10px;height:10px;margin-right:4px}.s0{background:#1264a3}.s1{background:#e8912d}.s2{background:#2bac76}.s3{background:#e01e5a}.s4{background:#36c5f0}.s5{background:#611f69}.bar-row{display:flex;align-items:center;gap:6px;font-size:12px}.bar-label{width:120px}.bar{height:12px}.modal-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.4);display:flex;align-items:center;justify-content:center}.modal{background:#fff;border-radius:8px;padding:16px 20px;width:520px;max-height:80vh;overflow:auto}.modal-title{font-size:20px;font-weight:800;margin-bottom:8px}.input{margin:8px 0}.input-label{display:block;font-weight:700}.input input,.input textarea,.input select{width:100%;box-sizing:border-box;padding:6px;font:inherit}.input textarea{height:90px}.hint{font-size:12px;color:#616061}.error{color:#e01e5a;font-size:13px}.modal-actions{display:flex;justify-content:flex-end;gap:8px;margin-top:12px}.empty{color:#616061}.unsupported{color:#999;font-size:12px}`;

/** Polls the live fragment and turns clicks, selects, replies and modal submits into POST /act. */
const SCRIPT = `
const live=document.getElementById('live');let last='';let busy=false;
async function refresh(){if(busy)return;const r=await fetch('/fragment');const html=await r.text();
const a=document.activeElement;const typing=a&&live.contains(a)&&/INPUT|TEXTAREA|SELECT/.test(a.tagName)&&(a.value||a.closest('form.modal'));
if(html!==last&&!typing){
const open=[...live.querySelectorAll('details[open]')].map(d=>d.dataset.thread);
last=html;live.innerHTML=html;
live.querySelectorAll('details.thread').forEach(d=>{if(open.includes(d.dataset.thread))d.open=true});
live.querySelectorAll('form.reply').forEach(f=>{if(drafts[f.dataset.thread])f.elements.text.value=drafts[f.dataset.thread]})}}
setInterval(refresh,500);
async function act(body){busy=true;try{const r=await fetch('/act',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)});if(!r.ok)alert(await r.text())}finally{busy=false;last='';refresh()}}
function inputs(form){const out={};if(!form)return out;form.querySelectorAll('[data-kind]').forEach(el=>{out[el.name]={action:el.dataset.action,kind:el.dataset.kind,value:el.value}});return out}
function surfaceOf(el){const m=el.closest('[data-ts]');if(el.closest('[data-surface=modal]'))return 'modal';if(el.closest('[data-surface=home]'))return 'home';return m?m.dataset.ts:''}
function element(el){return{kind:'click',surface:surfaceOf(el),actionId:el.dataset.action,blockId:el.dataset.block,value:el.dataset.value??el.value,elementType:el.dataset.type,inputs:inputs(el.closest('form.modal'))}}
document.getElementById('composer').addEventListener('submit',e=>{e.preventDefault();const t=e.target.elements.text;const text=t.value.trim();if(!text)return;t.value='';act({kind:'type',text})});
live.addEventListener('submit',e=>{e.preventDefault();const f=e.target;if(f.classList.contains('reply')){const text=f.elements.text.value.trim();if(!text)return;f.elements.text.value='';act({kind:'type',text,threadTs:f.dataset.thread})}else if(f.classList.contains('modal')){act({kind:'submit',inputs:inputs(f)})}});
live.addEventListener('click',e=>{const el=e.target.closest('button');if(!el)return;if(el.hasAttribute('data-close')){e.preventDefault();act({kind:'close'});return}if(el.dataset.type==='button'){e.preventDefault();act(element(el))}});
live.addEventListener('change',e=>{const el=e.target;if(el.dataset&&el.dataset.type&&el.value)act(element(el))});
document.querySelectorAll('.tab').forEach(t=>t.addEventListener('click',()=>{document.querySelectorAll('.tab').forEach(x=>x.classList.toggle('active',x===t));live.className='show-'+t.dataset.tab;if(t.dataset.tab==='home')act({kind:'home'})}));
`;
