/**
 * The page's script: polls the live fragment (keeping open threads, the API log and the Home tab as they
 * were), shows every time in the viewer's own zone, and turns clicks, menus, replies, the assistant's
 * composer, modal submits and the scenario bar into POST /act.
 */
export const PAGE_SCRIPT = `
const live=document.getElementById('live');let last='';let busy=false;let homeTab='home';const drafts={};
function two(n){return String(n).padStart(2,'0')}
function dayDiff(d){const a=new Date();a.setHours(0,0,0,0);const b=new Date(d);b.setHours(0,0,0,0);return Math.round((b-a)/864e5)}
function ago(d){const s=Math.round((Date.now()-d)/1000);if(s<60)return 'just now';const m=Math.round(s/60);if(m<60)return m+(m===1?' minute ago':' minutes ago');const h=Math.round(m/60);if(h<48)return h+(h===1?' hour ago':' hours ago');return Math.round(h/24)+' days ago'}
function fmt(epoch,format){const d=new Date(epoch*1000);const time=d.toLocaleTimeString([],{hour:'numeric',minute:'2-digit'});const short=d.toLocaleDateString([],{month:'short',day:'numeric',year:'numeric'});const diff=dayDiff(d);const pretty=diff===0?'Today':diff===-1?'Yesterday':diff===1?'Tomorrow':short;
return format.replace(/\\{time_secs\\}/g,d.toLocaleTimeString([],{hour:'numeric',minute:'2-digit',second:'2-digit'})).replace(/\\{time\\}/g,time).replace(/\\{date_short_pretty\\}/g,pretty).replace(/\\{date_short\\}/g,short).replace(/\\{date_pretty\\}/g,diff===0?'Today':d.toLocaleDateString([],{month:'long',day:'numeric',year:'numeric'})).replace(/\\{date_long(_pretty)?\\}/g,d.toLocaleDateString([],{weekday:'long',month:'long',day:'numeric',year:'numeric'})).replace(/\\{date\\}/g,d.toLocaleDateString([],{month:'long',day:'numeric',year:'numeric'})).replace(/\\{date_num\\}/g,d.getFullYear()+'-'+two(d.getMonth()+1)+'-'+two(d.getDate())).replace(/\\{ago\\}/g,ago(d))}
function localTimes(){live.querySelectorAll('time.slack-date').forEach(t=>{const e=Number(t.dataset.epoch);if(!e)return;t.textContent=fmt(e,t.dataset.format||'{time}');t.title=new Date(e*1000).toString();t.dataset.local='1'})}
function showHomeTab(){live.querySelectorAll('.home-tab').forEach(b=>b.classList.toggle('active',b.dataset.homeTab===homeTab));live.querySelectorAll('.home-panel').forEach(p=>p.classList.toggle('active',p.dataset.homePanel===homeTab))}
async function refresh(){if(busy)return;const r=await fetch('/fragment');const html=await r.text();
const a=document.activeElement;const typing=a&&live.contains(a)&&/INPUT|TEXTAREA|SELECT/.test(a.tagName)&&(a.value||a.closest('form.modal'));
const menuOpen=live.querySelector('.hover-menu.open');
if(html!==last&&!typing&&!menuOpen){
const open=[...live.querySelectorAll('details[open]')].map(d=>d.dataset.thread||d.id);const closed=[...live.querySelectorAll('details.thread:not([open])')].map(d=>d.dataset.thread);
const scroll=[...live.querySelectorAll('.pane,.assistant-thread')].map(p=>[p.id||p.className,p.scrollTop,p.scrollHeight-p.scrollTop-p.clientHeight<40]);
last=html;live.innerHTML=html;
live.querySelectorAll('details').forEach(d=>{const k=d.dataset.thread||d.id;if(open.includes(k))d.open=true;if(closed.includes(k))d.open=false});
live.querySelectorAll('.pane,.assistant-thread').forEach(p=>{const s=scroll.find(x=>x[0]===(p.id||p.className));if(!s||s[2])p.scrollTop=p.scrollHeight;else p.scrollTop=s[1]});
live.querySelectorAll('form.reply').forEach(f=>{if(drafts[f.dataset.thread])f.elements.text.value=drafts[f.dataset.thread]});
localTimes();showHomeTab()}}
setInterval(refresh,500);localTimes();showHomeTab();
async function act(body,quiet){if(!quiet)busy=true;try{const r=await fetch('/act',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)});if(!r.ok)alert(await r.text())}finally{if(!quiet)busy=false;last='';refresh()}}
function inputs(form){const out={};if(!form)return out;form.querySelectorAll('[data-kind]').forEach(el=>{out[el.name]={action:el.dataset.action,kind:el.dataset.kind,value:el.value}});return out}
function surfaceOf(el){const m=el.closest('[data-ts]');if(el.closest('[data-surface=modal]'))return 'modal';if(el.closest('[data-surface=home]'))return 'home';return m?m.dataset.ts:''}
function element(el){return{kind:'click',surface:surfaceOf(el),actionId:el.dataset.action,blockId:el.dataset.block,value:el.dataset.value??el.value,elementType:el.dataset.type,inputs:inputs(el.closest('form.modal'))}}
document.getElementById('composer').addEventListener('submit',e=>{e.preventDefault();const t=e.target.elements.text;const text=t.value.trim();if(!text)return;t.value='';act({kind:'type',text})});
live.addEventListener('input',e=>{const f=e.target.closest('form.reply');if(f)drafts[f.dataset.thread]=e.target.value});
live.addEventListener('submit',e=>{e.preventDefault();const f=e.target;if(f.id==='assistant-composer'){const text=f.elements.text.value.trim();if(!text)return;f.elements.text.value='';act({kind:'assistant',text},true)}else if(f.classList.contains('reply')){const text=f.elements.text.value.trim();if(!text)return;f.elements.text.value='';delete drafts[f.dataset.thread];act({kind:'type',text,threadTs:f.dataset.thread})}else if(f.classList.contains('modal')){act({kind:'submit',inputs:inputs(f)})}});
async function copyJson(el){const ts=el.closest('[data-ts]').dataset.ts;const r=await fetch('/message.json?ts='+encodeURIComponent(ts));const json=await r.text();try{await navigator.clipboard.writeText(json);el.textContent='Copied';el.classList.add('copied')}catch{window.prompt('Block Kit JSON',json)}}
live.addEventListener('click',e=>{const el=e.target.closest('button');if(!el)return;const msg=el.closest('[data-ts]');
if(el.hasAttribute('data-home-tab')){homeTab=el.dataset.homeTab;showHomeTab();return}
if(el.hasAttribute('data-close-assistant')){act({kind:'close',surface:'assistant'});return}
if(el.hasAttribute('data-prompt')){act({kind:'assistant',text:el.dataset.prompt},true);return}
if(el.hasAttribute('data-react')){act({kind:'react',surface:msg.dataset.ts});return}
if(el.hasAttribute('data-shortcut')){el.closest('.hover-menu').classList.toggle('open');return}
if(el.hasAttribute('data-shortcut-run')){el.closest('.hover-menu').classList.remove('open');act({kind:'shortcut',surface:msg.dataset.ts});return}
if(el.hasAttribute('data-copy-json')){copyJson(el);return}
if(el.hasAttribute('data-close')){e.preventDefault();act({kind:'close'});return}if(el.dataset.type==='button'){e.preventDefault();act(element(el))}});
live.addEventListener('change',e=>{const el=e.target;if(el.dataset&&el.dataset.type&&el.value)act(element(el))});
document.querySelectorAll('.tab').forEach(t=>t.addEventListener('click',()=>{document.querySelectorAll('.tab').forEach(x=>x.classList.toggle('active',x===t));live.className='show-'+t.dataset.tab;if(t.dataset.tab==='home')act({kind:'home'})}));
const state=document.getElementById('scenario-state');
document.querySelectorAll('.scenario').forEach(b=>b.addEventListener('click',async()=>{if(b.classList.contains('running'))return;b.classList.add('running');state.textContent=b.textContent+'…';
if(b.dataset.scenario==='open-assistant'||b.dataset.scenario==='paste-link'||b.dataset.scenario==='job-fails'){document.querySelector('.tab[data-tab=channel]').click()}
try{await act({kind:'scenario',name:b.dataset.scenario},true);state.textContent=''}finally{b.classList.remove('running')}}));
`;
