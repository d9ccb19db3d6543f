// The Wardrik inbox page. It reads and answers through the JSON API beside it (api/…) and nothing else.
// Every element is built with textContent: nothing a tool, a model or a person wrote becomes markup.
'use strict';

(() => {
  /** Strings longer than this are folded: the first part shows, the rest opens with its summary. */
  const FOLD_AT = 240;
  /** Deeper than this, a value shows as one line of JSON: a tool's output may nest thousands deep, and the page must not overflow its stack. */
  const PRETTY_DEPTH = 32;
  /** Invisible, line-breaking and direction-changing characters JSON.stringify leaves as they are. */
  const HIDDEN = /[\u007f-\u00a0\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/g;
  const OUTSIDE_NOTE =
    'Asked for after the run read text from outside (a web page, an e-mail, an MCP server\'s answer). ' +
    'That text may carry instructions meant for the model: check that this call is what a person would want.';
  const KIND_NOTES = {
    approval: 'asks for approval',
    park: 'the tool asks a person for a value',
    in_doubt: 'a crash stopped this call mid-way: say whether it took effect',
    tool_change: "the MCP tool's definition changed: approving accepts the new one and runs the call",
    question: 'an MCP server asks during a call: accept with the fields it asks for, or decline',
    authorize: 'an MCP server needs a person to sign in',
  };

  let session = null;
  let focusedLink = false;

  // ----- talking to the API -----

  async function api(method, path, body) {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && session !== null) headers[session.csrfHeader] = session.csrfToken;
    const response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status === 401) {
      // The session ended (expired, signed out, the server restarted): the page itself shows the sign-in form.
      location.reload();
      throw new Error('Signed out; sign in again.');
    }
    const data = await response.json().catch(() => ({ error: { message: `The server answered ${response.status} without JSON.` } }));
    if (!response.ok) {
      const error = new Error(data.error?.message ?? `The server answered ${response.status}.`);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  // ----- small DOM helpers -----

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (key in node && typeof value !== 'string') node[key] = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
    return node;
  }

  function ago(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s}s ago`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m}m ago`;
    const h = Math.floor(m / 60);
    return h < 48 ? `${h}h ago` : `${Math.floor(h / 24)}d ago`;
  }

  function when(ms) {
    return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  }

  function usd(amount) {
    return `$${amount.toFixed(Math.abs(amount) < 1 ? 4 : 2)}`;
  }

  function status(text, isError) {
    const node = document.getElementById('status');
    node.textContent = text;
    node.className = isError ? 'error' : 'ok';
  }

  // ----- exact arguments, pretty, long values folded (never cut) -----

  /**
   * JSON text with the characters a person cannot see, or that reorder what follows them (U+202E shows the
   * rest backwards), written as \u escapes: still the same JSON, and what a person reads is what runs.
   */
  function json(value) {
    const text = JSON.stringify(value);
    return text === undefined ? text : text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }

  /** Pretty JSON as DOM: a long string shows its start and a <details> with all of it, saying how long it is. */
  function prettyJson(value) {
    const root = el('pre', { class: 'json' });
    write(root, value, '');
    return root;
  }

  function write(parent, value, pad, level = 0) {
    if (value === null || typeof value !== 'object') return writeScalar(parent, value);
    if (level >= PRETTY_DEPTH) return writeDeep(parent, value);
    const isArray = Array.isArray(value);
    const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
    if (entries.length === 0) return parent.append(isArray ? '[]' : '{}');
    parent.append(isArray ? '[\n' : '{\n');
    entries.forEach(([key, child], i) => {
      parent.append(pad + '  ');
      if (!isArray) parent.append(el('span', { class: 'key', text: json(key) }), ': ');
      write(parent, child, pad + '  ', level + 1);
      parent.append(i < entries.length - 1 ? ',\n' : '\n');
    });
    parent.append(pad + (isArray ? ']' : '}'));
  }

  function writeScalar(parent, value) {
    const text = json(value);
    if (typeof value !== 'string' || text.length <= FOLD_AT) {
      parent.append(el('span', { class: typeof value, text: text === undefined ? 'undefined' : text }));
      return;
    }
    parent.append(
      el(
        'details',
        { class: 'fold' },
        el('summary', {}, el('span', { class: 'string', text: `${text.slice(0, 80)}…` }), el('span', { class: 'fold-note', text: ` folded: ${value.length.toLocaleString('en')} characters, open to read all of it` })),
        el('span', { class: 'string', text }),
      ),
    );
  }

  /** What is nested deeper than `PRETTY_DEPTH`, as one folded line of JSON: whole, and no deeper in the page's own stack. */
  function writeDeep(parent, value) {
    let text;
    try {
      text = json(value);
    } catch (error) {
      parent.append(el('span', { class: 'deep error', text: `(nested too deeply for this browser to show: ${error.message}; wardrik show --json prints it)` }));
      return;
    }
    parent.append(
      el(
        'details',
        { class: 'fold' },
        el('summary', {}, el('span', { class: 'string', text: `${text.slice(0, 80)}…` }), el('span', { class: 'fold-note', text: ` nested deeper than ${PRETTY_DEPTH} levels: shown as one line of JSON, ${text.length.toLocaleString('en')} characters; open to read all of it` })),
        el('span', { class: 'deep', text }),
      ),
    );
  }

  // ----- one item -----

  function labelList(labels) {
    if (labels.length === 0) return el('p', { class: 'labels' }, 'Labels: none');
    const outside = labels.includes('outside');
    return el(
      'div',
      { class: 'labels' },
      el('p', {}, 'Labels: ', ...labels.map((label) => el('span', { class: label === 'outside' ? 'label label-outside' : 'label', text: label }))),
      outside ? el('p', { class: 'outside-note', role: 'note' }, el('strong', { text: 'outside: ' }), OUTSIDE_NOTE) : null,
    );
  }

  function meta(item) {
    return el(
      'dl',
      { class: 'meta' },
      el('dt', { text: 'Agent' }),
      el('dd', { text: item.agent }),
      el('dt', { text: 'Run' }),
      el('dd', {}, el('button', { type: 'button', class: 'link', onclick: () => showRun(item.run), text: item.run, 'aria-label': `Show run ${item.run}` })),
      el('dt', { text: 'Call' }),
      el('dd', { text: item.call }),
      el('dt', { text: 'Waiting since' }),
      el('dd', {}, el('time', { class: 'age', datetime: new Date(item.createdAt).toISOString(), text: `${when(item.createdAt)} (${ago(item.ageMs)})` })),
      el('dt', { text: 'Reason' }),
      el('dd', { text: item.reason }),
      ...(item.decidedBy ? [el('dt', { text: 'Decided by' }), el('dd', { class: 'decided-by', text: item.decidedBy })] : []),
    );
  }

  function pendingItem(item) {
    const note = el('p', { class: 'result', role: 'status' });
    const li = el(
      'li',
      { class: `item kind-${item.kind}`, id: `item-${item.id}`, 'data-inbox-id': item.id, 'data-revision': String(item.revision ?? 0), tabindex: '-1', 'aria-labelledby': `title-${item.id}` },
      el('h3', { id: `title-${item.id}` }, el('span', { class: 'kind', text: item.kind }), ' ', el('span', { class: 'tool', text: item.tool }), el('span', { class: 'kind-note', text: ` — ${KIND_NOTES[item.kind] ?? item.kind}` })),
      meta(item),
      labelList(item.labels),
      el('h4', { text: 'Arguments, exactly as the call has them' }),
      prettyJson(item.arguments),
      el('p', { class: 'digest', title: item.digest }, `Digest ${item.digest.slice(0, 16)}… (an approval is bound to exactly these arguments)`),
      approvalsSoFar(item),
      // An item another group answers, or one asked for by this person, shows why, and no buttons.
      item.mayAnswer === false ? el('p', { class: 'not-yours', role: 'note', text: `Not yours to answer: ${item.notYours}. Who may answer it: ${item.whoMayAnswer ?? 'anyone signed in'}.` }) : actions(item, note),
      note,
    );
    return li;
  }

  /** Who may answer, the changed arguments awaiting others' approval, and who approved them so far. */
  function approvalsSoFar(item) {
    if (item.whoMayAnswer === undefined && item.edited === undefined) return el('div', { class: 'answerers' });
    const given = item.approvals || [];
    const quorum = (item.answerers && item.answerers.quorum) || 1;
    return el(
      'div',
      { class: 'answerers' },
      item.whoMayAnswer === undefined ? [] : el('p', { class: 'who-may-answer', text: `Who may answer: ${item.whoMayAnswer}.` }),
      item.edited === undefined ? [] : [el('h4', { text: `Changed by ${item.edited.by ?? 'a person'}: approving approves these arguments instead` }), prettyJson(item.edited.arguments)],
      quorum > 1 ? el('p', { class: 'approvals', text: `Approved so far: ${given.length === 0 ? 'nobody' : given.map((a) => a.by).join(', ')} (${given.length} of ${quorum}).` }) : [],
    );
  }

  function actions(item, note) {
    const forms = [];
    const act = (verb, body, button) => async (event) => {
      event.preventDefault();
      button.disabled = true;
      note.className = 'result';
      note.textContent = 'Sending…';
      try {
        const result = await api('POST', `api/items/${encodeURIComponent(item.id)}/${verb}`, body());
        const head = `${result.status[0].toUpperCase()}${result.status.slice(1)} by ${result.by}: ${item.tool} (${item.id}).`;
        const waitsForOthers = result.quorum !== undefined && result.approvals < result.quorum;
        const tail = waitsForOthers
          ? ` ${result.answer.reason}`
          : result.pending
            ? ` It runs on the next node that offers ${item.tool}; the agent's turn then goes on.`
            : ` The call answered: ${answerText(result.answer)}`;
        status(head + tail, false);
        await refresh();
      } catch (error) {
        note.className = 'result error';
        note.textContent = error.message;
        status(error.message, true);
        button.disabled = false;
        if (error.status === 409) await refresh().catch(() => undefined);
      }
    };
    const id = item.id;
    if (item.kind === 'tool_change') {
      // What changed, in words, and both definitions whole: the person accepts exactly the new one.
      const change = item.detail || {};
      if (Array.isArray(change.changes)) forms.push(el('ul', { class: 'changes' }, change.changes.map((text) => el('li', { text: String(text) }))));
      forms.push(el('details', { class: 'definitions' }, el('summary', { text: 'The definitions before and after' }), el('h4', { text: 'Before' }), prettyJson(change.before ?? null), el('h4', { text: 'After' }), prettyJson(change.after ?? null)));
    }
    if (item.kind === 'approval' || item.kind === 'tool_change') {
      const approve = el('button', { type: 'submit', class: 'approve', text: item.kind === 'tool_change' ? 'Accept the new definition' : 'Approve' });
      // Arguments a person changed while others must still approve are what an approval now approves.
      const digest = item.edited === undefined ? item.digest : item.edited.digest;
      forms.push(el('form', { class: 'approve-form', onsubmit: act('approve', () => ({ digest }), approve) }, approve));
    } else if (item.kind === 'park') {
      const value = el('textarea', { id: `value-${id}`, name: 'value', rows: '2', required: true });
      const as = el('select', { id: `as-${id}`, name: 'as' }, el('option', { value: 'text', text: 'as text' }), el('option', { value: 'json', text: 'as JSON' }));
      const send = el('button', { type: 'submit', text: 'Answer' });
      const body = () => {
        if (as.value === 'text') return { value: value.value };
        try {
          return { value: JSON.parse(value.value) };
        } catch (error) {
          throw new Error(`The answer is not JSON (${error.message}); choose "as text" or write JSON such as {"amountCents":1200}.`);
        }
      };
      forms.push(el('form', { class: 'answer-form', onsubmit: act('answer', body, send) }, el('label', { for: `value-${id}`, text: 'Answer (the call returns it)' }), value, as, send));
    } else if (item.kind === 'question') {
      const detail = item.detail || {};
      if (detail.mode === 'url') {
        forms.push(el('p', {}, 'Open ', el('a', { href: detail.url, rel: 'noopener noreferrer', target: '_blank', text: detail.url }), ', then accept.'));
      } else {
        forms.push(el('pre', { class: 'schema', text: JSON.stringify(detail.requestedSchema, null, 2) }));
      }
      const content = el('textarea', { id: `content-${id}`, name: 'content', rows: '2', placeholder: '{"name": "Ada"} (fields left out take their defaults)' });
      const accept = el('button', { type: 'submit', text: 'Accept' });
      const body = () => {
        const text = content.value.trim();
        try {
          return { value: { action: 'accept', ...(detail.mode === 'url' ? {} : { content: text === '' ? {} : JSON.parse(text) }) } };
        } catch (error) {
          throw new Error(`The content is not JSON (${error.message}); write an object such as {"name":"Ada"}.`);
        }
      };
      forms.push(el('form', { class: 'accept-form', onsubmit: act('answer', body, accept) }, el('label', { for: `content-${id}`, text: 'Content as JSON' }), content, accept));
    } else if (item.kind === 'authorize') {
      const url = (item.detail || {}).url;
      if (typeof url === 'string' && /^https?:\/\//.test(url)) forms.push(el('p', {}, el('a', { href: url, rel: 'noopener noreferrer', target: '_blank', text: 'Open the sign-in page' }), ' (you come back here when done).'));
    } else if (item.kind === 'in_doubt') {
      const result = el('textarea', { id: `result-${id}`, name: 'result', rows: '2', placeholder: '{"sent": true}' });
      const happened = el('button', { type: 'submit', text: 'It happened' });
      const body = () => {
        const text = result.value.trim();
        try {
          return { value: { happened: true, result: text === '' ? null : JSON.parse(text) } };
        } catch (error) {
          throw new Error(`The result is not JSON (${error.message}); write it as JSON, or leave it empty.`);
        }
      };
      forms.push(
        el('form', { class: 'happened-form', onsubmit: act('answer', body, happened) }, el('label', { for: `result-${id}`, text: 'It took effect: its result as JSON (optional)' }), result, happened),
      );
      const rerun = el('button', { type: 'submit', text: 'It did not happen: run it now' });
      forms.push(el('form', { class: 'rerun-form', onsubmit: act('answer', () => ({ value: { happened: false } }), rerun) }, rerun));
    }
    const reason = el('input', { id: `reason-${id}`, name: 'reason', type: 'text', required: true, maxlength: '4000' });
    const deny = el('button', { type: 'submit', class: 'deny', text: 'Deny' });
    forms.push(el('form', { class: 'deny-form', onsubmit: act('deny', () => ({ reason: reason.value }), deny) }, el('label', { for: `reason-${id}`, text: 'Reason for denying (required; the model reads it)' }), reason, deny));
    return el('div', { class: 'actions' }, forms);
  }

  function answerText(answer) {
    if (answer.status === 'ok') return typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output);
    if (answer.status === 'error') return `${answer.code}: ${answer.message}`;
    return answer.reason ?? answer.status;
  }

  function answeredItem(item) {
    const how = `${item.status}${item.by === undefined ? '' : ` by ${item.by}`}${item.answeredAt === undefined ? '' : ` at ${when(item.answeredAt)}`}`;
    return el(
      'li',
      { class: `item answered status-${item.status}`, id: `item-${item.id}`, 'data-inbox-id': item.id, 'data-revision': String(item.revision ?? 0), tabindex: '-1' },
      el('h3', {}, el('span', { class: `answer answer-${item.status}`, text: how }), ' · ', el('span', { class: 'kind', text: item.kind }), ' ', el('span', { class: 'tool', text: item.tool })),
      meta(item),
      labelList(item.labels),
      el('details', {}, el('summary', { text: 'Arguments' }), prettyJson(item.arguments)),
    );
  }

  // ----- the lists, kept in place between polls so typing and focus survive -----

  /** Makes `list` show `items` in order: new ones rendered, gone ones removed, the rest left as they are. */
  function sync(list, items, render, empty) {
    const wanted = new Map(items.map((item) => [item.id, item]));
    for (const node of [...list.children]) {
      const id = node.getAttribute('data-inbox-id');
      if (id === null || !wanted.has(id)) node.remove();
    }
    const present = new Set([...list.children].map((node) => node.getAttribute('data-inbox-id')));
    let previous = null;
    for (const item of items) {
      let node = present.has(item.id) ? list.querySelector(`[data-inbox-id="${CSS.escape(item.id)}"]`) : null;
      // An item someone approved toward its quorum, or changed, since it was drawn is drawn again.
      if (node !== null && node.getAttribute('data-revision') !== String(item.revision ?? 0)) {
        const fresh = render(item);
        node.replaceWith(fresh);
        node = fresh;
      }
      if (node === null) node = render(item);
      else {
        const age = node.querySelector('.age');
        if (age !== null) age.textContent = `${when(item.createdAt)} (${ago(item.ageMs)})`;
      }
      if (previous === null ? list.firstChild !== node : previous.nextSibling !== node) list.insertBefore(node, previous === null ? list.firstChild : previous.nextSibling);
      previous = node;
    }
    if (items.length === 0) list.append(el('li', { class: 'empty', text: empty }));
  }

  /** The answered list is read when the pending items change, and at least every 30 s, not on every poll: it is the costlier read. */
  let pendingIds = null;
  let answeredReadAt = 0;

  async function refresh() {
    const pending = await api('GET', 'api/items');
    const ids = pending.items.map((item) => item.id).join(' ');
    const answered = ids !== pendingIds || Date.now() - answeredReadAt > 30_000 ? await api('GET', 'api/items?status=answered&limit=30') : undefined;
    // Pending first, so an item that was just answered leaves that list before it joins the other.
    sync(document.getElementById('pending'), pending.items, pendingItem, 'Nothing waits for a person.');
    if (answered !== undefined) {
      sync(document.getElementById('answered'), answered.items, answeredItem, 'Nothing answered yet.');
      pendingIds = ids;
      answeredReadAt = Date.now();
    }
    document.getElementById('pending-count').textContent = `(${pending.items.length})`;
    document.title = pending.items.length > 0 ? `(${pending.items.length}) Wardrik inbox` : 'Wardrik inbox';
    // A notification links to its item with ?item=ID: show it once, where it is.
    const linked = new URLSearchParams(location.search).get('item');
    if (!focusedLink && linked !== null) {
      focusedLink = true;
      const target = document.getElementById(`item-${linked}`);
      if (target !== null) {
        target.classList.add('linked');
        target.focus();
        target.scrollIntoView({ block: 'start' });
      }
    }
  }

  // ----- a run's timeline, as `wardrik show` prints it -----

  async function showRun(run) {
    const section = document.getElementById('run');
    const body = document.getElementById('run-body');
    section.hidden = false;
    body.textContent = 'Loading…';
    document.getElementById('run-title').textContent = `Run ${run}`;
    try {
      body.replaceChildren(timeline(await api('GET', `api/runs/${encodeURIComponent(run)}`)));
    } catch (error) {
      body.replaceChildren(el('p', { class: 'error', text: error.message }));
    }
    document.getElementById('run-title').focus();
  }

  function timeline(view) {
    const turn = view.turn;
    const data = turn?.data ?? {};
    const parts = [];
    parts.push(
      el('p', {
        text: turn
          ? `Agent ${turn.agent} · turn ${turn.status} · model ${data.model ?? '?'} · started ${when(turn.createdAt)} · last written ${when(turn.updatedAt)}`
          : `Agent ${view.agent} · calls made through runner.run (no agent turn)`,
      }),
    );
    if (data.input !== undefined) parts.push(el('p', {}, el('strong', { text: 'User: ' }), data.input));
    if (view.steps.length > 0) {
      parts.push(el('h3', { text: 'Steps' }), el('ol', { class: 'steps' }, view.steps.map(stepItem)));
    }
    parts.push(el('h3', { text: view.calls.length === 0 ? 'Calls: none' : 'Calls' }));
    parts.push(
      el(
        'ol',
        { class: 'calls' },
        view.calls.map((call) =>
          el(
            'li',
            {},
            el('p', {}, el('code', { text: `${when(call.updatedAt)}  ${call.call}  ${call.tool}` })),
            prettyJson(call.arguments),
            callState(call),
            el('p', { class: 'decided-by', text: `decided by ${call.decidedBy ?? '-'}` }),
            view.inbox
              .filter((entry) => entry.call === call.call)
              .map((entry) =>
                el('p', {
                  text: `inbox ${entry.id} (${entry.kind}, ${when(entry.createdAt)}): ${entry.status === 'pending' ? 'pending' : `${entry.status}${entry.by === undefined ? '' : ` by ${entry.by}`}${entry.answeredAt === undefined ? '' : ` at ${when(entry.answeredAt)}`}`}`,
                }),
              ),
            el('p', {}, `cost ${call.costUsd === undefined ? '-' : usd(call.costUsd)} · attempts ${call.attempt} · labels `, ...labelSpans(call.answer?.labels ?? [])),
          ),
        ),
      ),
    );
    parts.push(el('p', {}, 'Labels of the run: ', ...labelSpans(view.labels)));
    if (view.labels.includes('outside')) parts.push(el('p', { class: 'outside-note', role: 'note' }, el('strong', { text: 'outside: ' }), 'this run has read text from outside; calls after that are asked for under its influence.'));
    if (data.text) parts.push(el('p', {}, el('strong', { text: turn?.status === 'done' ? 'Answer: ' : 'Last text: ' }), data.text));
    if (data.error) parts.push(el('p', { class: 'error', text: `Error: ${data.error}` }));
    const t = view.totals;
    const totals = [`${t.calls} calls (${t.succeeded} succeeded, ${t.failed} failed, ${t.parked} parked${t.running > 0 ? `, ${t.running} running` : ''})`, `tools ${usd(t.toolCostUsd)}`];
    if (view.steps.length > 0) totals.push(`model ${usd(t.modelCostUsd)}`);
    totals.push(`spent ${usd(t.spentUsd)}`);
    parts.push(el('p', { class: 'totals', text: `Totals: ${totals.join(' · ')}` }));
    return el('div', { class: 'timeline' }, parts);
  }

  function labelSpans(labels) {
    if (labels.length === 0) return ['-'];
    return labels.map((label) => el('span', { class: label === 'outside' ? 'label label-outside' : 'label', text: label }));
  }

  function stepItem(step) {
    const data = step.data ?? {};
    if (data.kind === 'model') {
      const asks = data.calls.map((call) => `${call.name} ${call.input}`).join('; ');
      return el('li', { text: `${when(step.createdAt)} model${data.text ? ` "${data.text}"` : ''}${asks ? ` → ${asks}` : ''} · ${data.usage.inputTokens} in / ${data.usage.outputTokens} out tokens · ${usd(data.usd)}` });
    }
    if (data.kind === 'tools') {
      return el('li', { text: `${when(step.createdAt)} tool answers → ${data.results.map((r) => `${r.name}${r.error ? ' (error)' : ''}: ${r.text}`).join('; ')}` });
    }
    return el('li', { text: `${when(step.createdAt)} ${JSON.stringify(step.data)}` });
  }

  /** A call's state as a word, and what it answered: a succeeded call's output as pretty JSON, folded where long. */
  function callState(call) {
    const answer = call.answer ?? {};
    const word = { started: 'running', parked: `parked${answer.kind ? ` (${answer.kind})` : ''}`, succeeded: 'succeeded', failed: `failed${answer.code ? ` (${answer.code})` : ''}` }[call.state] ?? call.state;
    const head = el('p', { class: 'state' }, el('span', { class: `state-word state-${call.state}`, text: word }));
    if (call.state === 'started') head.append(' no answer yet; recovery finishes it if its node died');
    if (call.state === 'parked' && answer.reason) head.append(` ${answer.reason} · inbox ${answer.inboxId}`);
    if (call.state === 'failed' && answer.message) head.append(` ${answer.message}`);
    return call.state === 'succeeded' ? [head, prettyJson(answer.status === 'ok' ? answer.output : answer)] : [head];
  }

  // ----- start -----

  async function start() {
    try {
      session = await api('GET', 'api/session');
    } catch (error) {
      status(error.message, true);
      return;
    }
    document.getElementById('who').textContent = `Signed in as ${session.person}; your answers are recorded under this name.`;
    const signOut = document.getElementById('sign-out');
    if (session.signOut) {
      signOut.hidden = false;
      signOut.addEventListener('click', async () => {
        await api('POST', 'sign-out', {}).catch(() => undefined);
        location.reload();
      });
    }
    document.getElementById('run-close').addEventListener('click', () => {
      document.getElementById('run').hidden = true;
      document.getElementById('pending').focus();
    });
    // One look at a time: when the list takes longer than pollMs to arrive, the next look waits for this one.
    let looking = null;
    const tick = () => {
      looking ??= refresh()
        .catch((error) => status(`Could not refresh: ${error.message}`, true))
        .finally(() => (looking = null));
      return looking;
    };
    await tick();
    setInterval(tick, session.pollMs);
  }

  document.addEventListener('DOMContentLoaded', start);
})();
