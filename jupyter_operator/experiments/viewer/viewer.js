// The results viewer: the grid of tasks x models, a column per dialect where the runs used
// several (pass rate, Wilson interval, tokens, cost, time), with filters, a run's transcript
// as a person reads it, and two runs side by side (the same run in two dialects, for one).
// One module for the saved page (`jupyter-operator view`) and the notebook (`Results.show()`).
// Every text of a model, a file or a row goes through textContent, never innerHTML; the
// cards are the notebook cards' own module (widget.js), loaded once the grid is drawn.
// A classic script (the saved page runs it before the transcripts are parsed, so the grid
// paints first); the notebook widget appends its own entry to make it a module.

const OUTCOMES = ['passed', 'failed', 'error'];
const RUNS_SHOWN = 200;

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function pct(x) {
  return x === null || x === undefined ? '–' : `${(100 * x).toFixed(x === 0 || x === 1 ? 0 : 1)}%`;
}

function num(x, digits = 0) {
  if (x === null || x === undefined) return '–';
  return Number(x).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function count(n, word) {
  return `${num(n)} ${word}${n === 1 ? '' : 's'}`;
}

function usd(x) {
  if (x === null || x === undefined) return '–';
  return `$${Number(x).toFixed(x < 0.01 ? 4 : 2)}`;
}

function secs(x) {
  return x === null || x === undefined ? '–' : `${Number(x).toFixed(x < 10 ? 2 : 1)} s`;
}

/** The Wilson score interval (``stats.wilson``), for the models' row over the tasks the
 *  filter leaves (the cells' own intervals come computed from Python). */
function wilson(passed, runs, confidence) {
  if (!runs) return [0, 1];
  // the two-sided normal quantile of the confidence: 1.96 at 95%, else found by bisection
  const z = confidence === 0.95 ? 1.959963984540054 : normalQuantile(0.5 + confidence / 2);
  const rate = passed / runs;
  const z2 = z * z;
  const scale = 1 + z2 / runs;
  const centre = (rate + z2 / (2 * runs)) / scale;
  const half = (z * Math.sqrt((rate * (1 - rate)) / runs + z2 / (4 * runs * runs))) / scale;
  return [passed === 0 ? 0 : Math.max(0, centre - half), passed === runs ? 1 : Math.min(1, centre + half)];
}

function normalQuantile(p) {
  // bisection on the error function: plenty for an interval drawn in pixels
  let lo = -10;
  let hi = 10;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (0.5 * (1 + erf(mid / Math.SQRT2)) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function erf(x) {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

/** A bar with the pass rate and its interval as a whisker. */
function rateBar(rate, low, high) {
  const bar = h('div', 'jpo-v-bar');
  const fill = h('div', 'jpo-v-bar-fill');
  fill.style.width = `${100 * rate}%`;
  const whisker = h('div', 'jpo-v-bar-interval');
  whisker.style.left = `${100 * low}%`;
  whisker.style.width = `${Math.max(0.5, 100 * (high - low))}%`;
  bar.append(fill, whisker);
  return bar;
}

function badge(outcome) {
  return h('span', `jpo-v-badge jpo-v-${outcome}`, outcome);
}

/** The dialect of a run or a cell (a view saved before runs named theirs: operator). */
function dialectOf(item) {
  return item.dialect || 'operator';
}

function runLabel(run, dialects) {
  return `${run.task} · ${run.model} · repeat ${run.repeat}` + (dialects ? ` · ${dialectOf(run)}` : '');
}

/** The cards of one turn, drawn by the notebook cards' module (a saved, decided run). */
function savedState(run, turn) {
  return {
    session: `saved-${run.id}-${turn.turn}`,
    workspace: '',
    dialect: dialectOf(run),
    title: 'Commands',
    notes: [],
    warning: null,
    dry_run: false,
    can_edit: false,
    results_title: '',
    items: turn.cards,
    previews: {},
    results_text: '',
    done: true,
    truncated_chars: 0,
    unread_markers: 0
  };
}

function fakeModel(state) {
  const handlers = {};
  return {
    get: name => (name === 'run_json' ? JSON.stringify(state) : undefined),
    on: (event, callback) => (handlers[event] = handlers[event] || []).push(callback),
    off: () => undefined,
    send: message => {
      // a saved run: nothing can be decided, undone or asked of a kernel
      const reply = { kind: 'reply', request: message.request, error: 'This is a saved run: nothing can be changed here.' };
      setTimeout(() => (handlers['msg:custom'] || []).forEach(cb => cb(reply)), 0);
    }
  };
}

/** A card without the cards' module (a package built without its front end). */
function plainCard(card) {
  const node = h('div', 'jpo-v-plaincard');
  const head = h('div', 'jpo-v-cardhead');
  head.append(h('span', `jpo-v-status jpo-v-s-${card.status}`, card.status), h('b', null, card.action || 'block'));
  if (card.path) head.append(h('code', null, card.path));
  if (card.rule_note) head.append(h('span', 'jpo-v-muted', card.rule_note));
  node.append(head, h('div', null, card.summary || ''));
  const body = card.diff || card.details;
  if (body) {
    const pre = h('pre', 'jpo-v-pre');
    for (const line of String(body).split('\n')) {
      const cls = card.diff && line.startsWith('+') ? 'jpo-v-add' : card.diff && line.startsWith('-') ? 'jpo-v-del' : null;
      pre.append(h('span', cls, `${line}\n`));
    }
    node.append(pre);
  }
  return node;
}

/** The viewer in `root`, drawing `data` (``viewdata.load_view``); `loadCards()` resolves to the
 *  cards' module (`render({model, el})`) or null. Returns a function that removes it. */
function mount(root, data, loadCards) {
  // the saved page parses a run's transcript when it is opened; the widget has them all
  const viewOf = data.view || (id => data.runs[id].view);
  const state = { task: '', model: '', dialect: '', outcome: '', cell: null, open: [], shown: RUNS_SHOWN };
  const dialects = data.dialects && data.dialects.length ? data.dialects : ['operator'];
  // several dialects: a grid column and a run-list column each, and a filter
  const several = dialects.length > 1;
  root.classList.add('jpo-viewer');
  if (getComputedStyle(document.body).getPropertyValue('--jp-layout-color1').trim() === '') {
    root.classList.add('jp-Operator-standalone');
  }
  root.replaceChildren();

  const head = h('div', 'jpo-v-head');
  const total = data.runs.length;
  const passed = data.runs.filter(r => r.passed).length;
  head.append(h('h1', 'jpo-v-title', `Results: ${data.title}`),
    h('span', 'jpo-v-muted', [count(total, 'run'), count(data.tasks.length, 'task'), count(data.models.length, 'model'),
      ...(several ? [count(dialects.length, 'dialect')] : []), `${num(passed)} passed`].join(' · ')));
  root.append(head);
  if (data.refused && data.refused.length) {
    const warn = h('div', 'jpo-v-warn', `${data.refused.length} line${data.refused.length === 1 ? '' : 's'} of results.jsonl refused (not drawn): ` +
      data.refused.slice(0, 5).map(r => `line ${r.line}: ${r.reason}`).join('; '));
    root.append(warn);
  }
  if (data.verified === false) {
    root.append(h('div', 'jpo-v-warn', 'These rows were read without checking their signatures (results from elsewhere).'));
  }

  const filters = h('div', 'jpo-v-filters');
  const select = (label, name, values) => {
    const wrap = h('label', 'jpo-v-filter', `${label} `);
    const sel = h('select');
    sel.name = name;
    sel.append(new Option('all', ''));
    for (const v of values) sel.append(new Option(v, v));
    sel.addEventListener('change', () => {
      state[name] = sel.value;
      state.cell = null;
      state.shown = RUNS_SHOWN;
      drawGrid();
      drawRuns();
    });
    wrap.append(sel);
    filters.append(wrap);
    return sel;
  };
  select('Task', 'task', data.tasks);
  select('Model', 'model', data.models);
  if (several) select('Dialect', 'dialect', dialects);
  select('Outcome', 'outcome', OUTCOMES);
  root.append(filters);

  const gridNode = h('div', 'jpo-v-gridwrap');
  const runsNode = h('div', 'jpo-v-runs');
  const detail = h('div', 'jpo-v-detail');
  root.append(gridNode, runsNode, detail);
  const conf = `${Math.round(100 * data.confidence)}%`;

  function visible(run) {
    return (!state.task || run.task === state.task) && (!state.model || run.model === state.model) &&
      (!state.dialect || dialectOf(run) === state.dialect) && (!state.outcome || run.outcome === state.outcome);
  }

  function sameCell(cell, t, m, d) {
    return Boolean(cell) && cell.task === t && cell.model === m && cell.dialect === d;
  }

  function drawGrid() {
    const tasks = data.tasks.filter(t => !state.task || t === state.task);
    const models = data.models.filter(m => !state.model || m === state.model);
    const shownDialects = dialects.filter(d => !state.dialect || d === state.dialect);
    // one column per model and dialect: the dialects of a model side by side
    const columns = models.flatMap(m => shownDialects.map(d => ({ model: m, dialect: d })));
    const cells = new Map(data.cells.map(c => [`${c.task}\u0000${c.model}\u0000${dialectOf(c)}`, c]));
    const table = h('table', 'jpo-v-grid');
    const caption = h('caption', null, `Pass rate by task, model${several ? ' and dialect' : ''}, with its ${conf} Wilson interval` +
      (state.outcome ? ` (runs shown below: ${state.outcome} only)` : ''));
    table.append(caption);
    const thead = h('thead');
    const top = h('tr');
    const corner = h('th', null, 'task');
    top.append(corner);
    for (const m of models) {
      const th = h('th', null, m);
      if (several) th.colSpan = shownDialects.length;
      top.append(th);
    }
    thead.append(top);
    if (several) {
      corner.rowSpan = 2;
      const second = h('tr', 'jpo-v-dialects');
      for (const c of columns) second.append(h('th', 'jpo-v-dialect', c.dialect));
      thead.append(second);
    }
    table.append(thead);
    const body = h('tbody');
    for (const t of tasks) {
      const tr = h('tr');
      tr.append(h('th', 'jpo-v-task', t));
      for (const { model: m, dialect: d } of columns) {
        const cell = cells.get(`${t}\u0000${m}\u0000${d}`);
        const td = h('td', 'jpo-v-cell');
        if (!cell) {
          td.append(h('span', 'jpo-v-muted', 'no runs'));
        } else {
          td.dataset.task = t;
          td.dataset.model = m;
          td.dataset.dialect = d;
          td.tabIndex = 0;
          td.title = `${several ? `${d}: ` : ''}${cell.passed} of ${cell.runs} passed; ${conf} interval ${pct(cell.low)} to ${pct(cell.high)}`;
          if (sameCell(state.cell, t, m, d)) td.classList.add('jpo-v-selected');
          const line = h('div', 'jpo-v-rate');
          line.append(h('b', null, pct(cell.rate)), h('span', 'jpo-v-muted', ` [${pct(cell.low)}, ${pct(cell.high)}]`));
          td.append(line, rateBar(cell.rate, cell.low, cell.high));
          const facts = [`${cell.passed}/${cell.runs}`];
          if (cell.errors) facts.push(`${cell.errors} error${cell.errors === 1 ? '' : 's'}`);
          facts.push(`${num(cell.tokens)} tok`);
          if (cell.cost !== null) facts.push(usd(cell.cost));
          facts.push(secs(cell.seconds));
          td.append(h('div', 'jpo-v-facts', facts.join(' · ')));
          const pick = () => {
            state.cell = sameCell(state.cell, t, m, d) ? null : { task: t, model: m, dialect: d };
            state.shown = RUNS_SHOWN;
            drawGrid();
            drawRuns();
          };
          td.addEventListener('click', pick);
          td.addEventListener('keydown', e => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
        }
        tr.append(td);
      }
      body.append(tr);
    }
    // every task of each model (in each dialect): its overall pass rate
    const foot = h('tr', 'jpo-v-total');
    foot.append(h('th', null, 'all tasks'));
    for (const { model: m, dialect: d } of columns) {
      const runs = data.runs.filter(r => r.model === m && dialectOf(r) === d && (!state.task || r.task === state.task));
      const ok = runs.filter(r => r.passed).length;
      const [low, high] = wilson(ok, runs.length, data.confidence);
      const td = h('td', 'jpo-v-cell');
      const line = h('div', 'jpo-v-rate');
      line.append(h('b', null, pct(runs.length ? ok / runs.length : null)), h('span', 'jpo-v-muted', ` [${pct(low)}, ${pct(high)}]`));
      td.append(line, rateBar(runs.length ? ok / runs.length : 0, low, high), h('div', 'jpo-v-facts', `${ok}/${runs.length}`));
      foot.append(td);
    }
    body.append(foot);
    table.append(body);
    gridNode.replaceChildren(table);
  }

  function drawRuns() {
    let runs = data.runs.filter(visible);
    if (state.cell) runs = runs.filter(r => sameCell(state.cell, r.task, r.model, dialectOf(r)));
    const box = h('div');
    const title = state.cell ? `Runs of ${state.cell.task} · ${state.cell.model}${several ? ` · ${state.cell.dialect}` : ''}` : 'Runs';
    const bar = h('div', 'jpo-v-runs-head');
    bar.append(h('h2', null, `${title} (${num(runs.length)})`),
      h('span', 'jpo-v-muted', 'Click a run to read it; tick two to put them side by side.'));
    box.append(bar);
    const table = h('table', 'jpo-v-runlist');
    const headRow = h('tr');
    const names = ['', 'task', 'model', ...(several ? ['dialect'] : []), 'repeat', 'outcome', 'stop', 'turns', 'tokens', 'cost', 'time', 'check'];
    for (const name of names) headRow.append(h('th', null, name));
    const thead = h('thead');
    thead.append(headRow);
    table.append(thead);
    const body = h('tbody');
    for (const run of runs.slice(0, state.shown)) {
      const tr = h('tr', 'jpo-v-run');
      tr.dataset.run = String(run.id);
      if (state.open.includes(run.id)) tr.classList.add('jpo-v-selected');
      const tick = h('input');
      tick.type = 'checkbox';
      tick.title = 'side by side';
      tick.checked = state.open.includes(run.id) && state.open.length === 2;
      tick.addEventListener('click', e => { e.stopPropagation(); toggleCompare(run.id, tick.checked); });
      const first = h('td');
      first.append(tick);
      const outcome = h('td');
      outcome.append(badge(run.outcome));
      const check = run.check_exit === null || run.check_exit === undefined ? 'not run' : `exit ${run.check_exit}`;
      tr.append(first, h('td', null, run.task), h('td', null, run.model));
      if (several) tr.append(h('td', 'jpo-v-dialect', dialectOf(run)));
      tr.append(h('td', null, run.repeat), outcome,
        h('td', null, run.stop_reason || ''), h('td', null, run.turns), h('td', null, num(run.tokens)), h('td', null, usd(run.cost)),
        h('td', null, secs(run.wall_seconds)), h('td', 'jpo-v-check', check));
      tr.tabIndex = 0;
      tr.addEventListener('click', () => openRuns([run.id]));
      tr.addEventListener('keydown', e => {
        if (e.target === tr && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); openRuns([run.id]); }
      });
      body.append(tr);
    }
    table.append(body);
    box.append(table);
    if (runs.length > state.shown) {
      const more = h('button', 'jpo-v-more', `Show ${Math.min(RUNS_SHOWN, runs.length - state.shown)} more of ${num(runs.length - state.shown)}`);
      more.addEventListener('click', () => { state.shown += RUNS_SHOWN; drawRuns(); });
      box.append(more);
    }
    runsNode.replaceChildren(box);
  }

  function toggleCompare(id, on) {
    let open = state.open.filter(x => x !== id);
    if (on) open = [...open.slice(-1), id];
    openRuns(open);
  }

  let drawn = 0; // which draw is current: an older one still loading the cards draws nothing
  function openRuns(ids) {
    if (document.readyState === 'loading' && data.view) {
      // a click before the page's transcripts are parsed: open the runs once they are
      parsed().then(() => openRuns(ids));
      return;
    }
    state.open = ids;
    drawRuns();
    const token = ++drawn;
    detail.replaceChildren();
    if (!ids.length) return;
    const columns = h('div', ids.length === 2 ? 'jpo-v-columns jpo-v-two' : 'jpo-v-columns');
    detail.append(columns);
    for (const id of ids) {
      const run = data.runs[id];
      const column = h('div', 'jpo-v-transcript');
      column.dataset.run = String(id);
      columns.append(column);
      const first = id === ids[0];
      Promise.resolve(viewOf(id)).then(view => {
        if (token !== drawn) return;
        drawTranscript(column, run, view, ids.length === 1, token);
        // once drawn: an empty column at the foot of a short page has nowhere to scroll to
        if (first) columns.scrollIntoView({ block: 'start' });
      });
    }
  }

  function other(run) {
    // the runs of the same task a person compares this one with: first the same model and
    // repeat in the other dialects, then other models and other repeats
    const found = data.runs.filter(r => r.task === run.task && r.id !== run.id);
    const twin = r => r.model === run.model && r.repeat === run.repeat;
    return [...found.filter(twin), ...found.filter(r => !twin(r))];
  }

  function otherLabel(run, r) {
    const same = r.model === run.model && r.repeat === run.repeat;
    if (several && same) return `in ${dialectOf(r)}: same model and repeat (${r.outcome})`;
    return `${r.model} · repeat ${r.repeat}${several ? ` · ${dialectOf(r)}` : ''} (${r.outcome})`;
  }

  function drawTranscript(node, run, view, single, token) {
    const top = h('div', 'jpo-v-thead');
    const close = h('button', 'jpo-v-close', '×');
    close.title = 'close';
    close.addEventListener('click', () => openRuns(state.open.filter(x => x !== run.id)));
    top.append(h('h2', null, runLabel(run, several)), badge(run.outcome), close);
    node.append(top);
    if (single) {
      const pick = h('select', 'jpo-v-compare');
      pick.append(new Option('Side by side with…', ''));
      for (const r of other(run)) pick.append(new Option(otherLabel(run, r), String(r.id)));
      pick.addEventListener('change', () => { if (pick.value) openRuns([run.id, Number(pick.value)]); });
      node.append(pick);
    }
    const facts = [`stop: ${run.stop_reason}`, `${run.turns} turn${run.turns === 1 ? '' : 's'}`,
      `${num(run.tokens)} tokens (${num(run.prompt_tokens)} in, ${num(run.completion_tokens)} out${run.tokens_estimated ? ', estimated' : ''})`,
      `cost ${usd(run.cost)}`, `time ${secs(run.wall_seconds)}`];
    node.append(h('div', 'jpo-v-facts', facts.join(' · ')));
    if (run.stop_message) node.append(h('div', 'jpo-v-note', run.stop_message));
    if (run.missing) node.append(h('div', 'jpo-v-warn', `No transcript: ${run.missing}.`));
    if (view && view.prompt) {
      node.append(h('h3', null, 'Task'), h('pre', 'jpo-v-pre jpo-v-prompt', view.prompt));
    }
    if (view && view.system !== null && view.system !== undefined && data.systems[view.system]) {
      const sys = h('details', 'jpo-v-system');
      sys.append(h('summary', null, 'System prompt'), h('pre', 'jpo-v-pre', data.systems[view.system]));
      node.append(sys);
    }
    for (const turn of view ? view.turns : []) {
      const section = h('section', 'jpo-v-turn');
      const th = h('div', 'jpo-v-turnhead');
      th.append(h('b', null, `Turn ${turn.turn}`));
      if (turn.usage) {
        th.append(h('span', 'jpo-v-muted', `${num(turn.usage.prompt)} in · ${num(turn.usage.completion)} out${turn.usage.estimated ? ' (estimated)' : ''}` +
          (turn.cost !== null ? ` · ${usd(turn.cost)}` : '') + (turn.model_seconds !== null ? ` · ${secs(turn.model_seconds)}` : '')));
      }
      section.append(th);
      if (turn.reply !== null) section.append(h('div', 'jpo-v-label', 'Reply'), h('pre', 'jpo-v-pre jpo-v-reply', turn.reply));
      for (const note of turn.notes) section.append(h('div', 'jpo-v-warn', note));
      if (turn.cards.length) {
        const cardsNode = h('div', 'jpo-v-cards');
        section.append(cardsNode);
        drawCards(cardsNode, run, turn, token);
        for (const card of turn.cards) {
          const outcome = card.execution && card.execution.outcome;
          const left = [card.diff_omitted && `its diff (${num(card.diff_omitted)} characters)`,
            outcome && outcome.outputs_omitted && `its cell run's outputs (${num(outcome.outputs_omitted)} characters)`].filter(Boolean);
          if (left.length) section.append(h('div', 'jpo-v-muted', `${card.id}: ${left.join(' and ')} left out of the transcript (too large)`));
        }
      } else if (turn.commands.length) {
        // a transcript made before cards were recorded: the commands and their decisions
        for (const c of turn.commands) {
          const d = turn.decisions.find(x => x.id === c.id);
          const r = turn.results.find(x => x.id === c.id);
          section.append(plainCard({ status: d ? d.outcome : c.status, action: c.action, path: c.path,
            rule_note: d ? `decided by ${d.decided_by}${d.rule ? ` (${d.rule})` : ''}` : '', summary: r ? r.summary : '' }));
        }
      }
      for (const sent of turn.sent) {
        const box = h('details', 'jpo-v-sent');
        box.open = true;
        box.append(h('summary', null, 'Sent back to the model'), h('pre', 'jpo-v-pre', sent));
        section.append(box);
      }
      node.append(section);
    }
    if (view && view.stop) {
      node.append(h('div', 'jpo-v-stop', `Stopped: ${view.stop.reason}${view.stop.message ? ` — ${view.stop.message}` : ''}`));
    }
    const check = h('div', 'jpo-v-checkout');
    const exit = run.check_exit === null || run.check_exit === undefined ? 'not run' : `exit ${run.check_exit}`;
    check.append(h('h3', null, `Check: ${run.passed ? 'passed' : 'failed'} (${exit})`), h('pre', 'jpo-v-pre', run.check_output || '(no output)'));
    node.append(check);
  }

  function drawCards(node, run, turn, token) {
    const fallback = () => turn.cards.forEach(c => node.append(plainCard(c)));
    if (!loadCards) return fallback();
    node.append(h('div', 'jpo-v-muted jpo-v-loading', 'drawing the cards…'));
    loadCards().then(cards => {
      if (token !== drawn) return;
      node.replaceChildren();
      if (!cards) return fallback();
      const el = h('div', 'jpo-v-cardhost');
      node.append(el);
      cards.render({ model: fakeModel(savedState(run, turn)), el });
    }, () => { node.replaceChildren(); fallback(); });
  }

  drawGrid();
  drawRuns();
  if (loadCards) {
    // the cards' module is parsed while the person looks at the grid, not on their click
    const idle = globalThis.requestIdleCallback || (f => setTimeout(f, 50));
    idle(() => loadCards().catch(() => null));
  }
  return () => root.replaceChildren();
}

/** Resolves once the whole page is parsed (the transcripts and the cards' module follow
 *  the viewer's script in the saved page). */
function parsed() {
  return document.readyState === 'loading'
    ? new Promise(resolve => document.addEventListener('DOMContentLoaded', resolve, { once: true }))
    : Promise.resolve();
}

/** The cards' module from the base64 text `read()` returns (the saved page), imported once. */
function cardsFromText(read) {
  let loading = null;
  return () => {
    if (!loading) {
      loading = parsed().then(() => {
        const base64 = read();
        if (!base64) return null;
        const bytes = Uint8Array.from(atob(base64), c => c.charCodeAt(0));
        const url = URL.createObjectURL(new Blob([bytes], { type: 'text/javascript' }));
        return import(url).then(m => m.default, () => null).finally(() => URL.revokeObjectURL(url));
      });
    }
    return loading;
  };
}

/** The cards' module asked of the kernel (the notebook), shared with the card widgets. */
function cardsFromKernel(model, key) {
  return () => {
    if (!globalThis[key]) {
      globalThis[key] = new Promise((resolve, reject) => {
        const onMessage = message => {
          if (!message || message.kind !== 'module') return;
          model.off('msg:custom', onMessage);
          if (!message.source) return resolve(null);
          const url = URL.createObjectURL(new Blob([message.source], { type: 'text/javascript' }));
          import(url).then(m => resolve(m.default), reject).finally(() => URL.revokeObjectURL(url));
        };
        model.on('msg:custom', onMessage);
        model.send({ kind: 'module' });
      }).catch(error => { delete globalThis[key]; throw error; });
    }
    return globalThis[key];
  };
}

