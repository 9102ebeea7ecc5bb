// The trace page of `check-model show --html`: lays out the data checker/trace_page.py
// embedded, and navigates it. Text goes in through textContent only, never as markup.
"use strict";
window.addEventListener("error", (e) => {
  document.documentElement.dataset.errors = (document.documentElement.dataset.errors || "") + e.message + "\n";
});

const trace = JSON.parse(document.getElementById("trace-data").textContent);
let selected = 0;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function header() {
  const verdict = trace.verdict ? el("span", {class: "badge " + trace.verdict}, trace.verdict) : null;
  const steps = trace.steps.length - 1;
  const sub = [`${steps} step${steps === 1 ? "" : "s"}`, trace.source,
    trace.loop == null ? null : `lasso: the cycle starts at state ${trace.loop}`].filter(Boolean).join(" · ");
  const keys = el("span", {}, " · keys: ", el("kbd", {}, "↑"), el("kbd", {}, "↓"), " or ",
    el("kbd", {}, "j"), el("kbd", {}, "k"), " step, ", el("kbd", {}, "Home"), el("kbd", {}, "End"),
    ", ", el("kbd", {}, "/"), " filter");
  return el("header", {}, el("h1", {}, trace.title + " ", verdict), el("div", {class: "sub"}, sub, keys));
}

function timeline() {
  const head = el("tr", {}, el("th", {}, "#"), el("th", {}, "step"),
    ...trace.lanes.map((l) => el("th", {class: "lane-name"}, el("span", {}, l.name))));
  const rows = trace.steps.map((step, i) => {
    const from = trace.lanes.findIndex((l) => l.key === step.lane);
    const to = trace.lanes.findIndex((l) => l.key === step.calls);
    const callee = to >= 0 && to !== from ? trace.lanes[to].name : null;
    const label = el("td", {class: "label", title: actionTitle(step)},
      el("span", {class: "act" + (step.fault ? " fault" : "") + (step.closing ? " closing" : "")}, step.label),
      callee ? el("span", {class: "called"}, " → " + callee) : null);
    const lanes = trace.lanes.map((lane, j) => {
      const between = to >= 0 && from >= 0 && j > Math.min(from, to) && j < Math.max(from, to);
      const mark = j === from ? (step.fault ? "⚡" : "●") : j === to && callee ? "◆" : "";
      const side = j === from && callee ? (to > from ? " right" : " left")
        : j === to && callee ? (from > to ? " right" : " left") : "";
      const classes = "lane" + (between ? " through" : "") + side + (step.fault && j === from ? " fault" : "");
      return el("td", {class: classes}, mark);
    });
    const breaks = trace.verdict === "violated" && trace.loop == null && i === trace.steps.length - 1;
    const classes = ["step", step.cycle ? "cycle" : "", i === trace.loop ? "loop-start" : "", breaks ? "breaks" : ""];
    return el("tr", {class: classes.join(" ").trim(), "data-step": i, onclick: () => select(i)},
      el("td", {class: "index"}, step.closing ? `→${trace.loop}` : String(i)), label, ...lanes);
  });
  return el("section", {id: "timeline"}, el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

function actionTitle(step) {
  const info = trace.actions[step.action] || {};
  return [info.where && info.where.text, info.doc].filter(Boolean).join("\n");
}

function variableTable(names, step, filter, changedOnly) {
  const rows = names.filter((name) => name.toLowerCase().includes(filter))
    .filter((name) => !changedOnly || name in step.changes)
    .map((name) => {
      const value = el("td", {}, step.values[name]);
      for (const line of step.changes[name] || []) value.append(el("div", {class: "diff"}, line));
      return el("tr", {class: name in step.changes ? "changed" : "", "data-var": name},
        el("td", {class: "name"}, name), value);
    });
  return el("table", {class: "vars"}, el("tbody", {}, ...rows));
}

function detail() {
  const step = trace.steps[selected];
  const filterBox = document.getElementById("filter");
  const filter = filterBox ? filterBox.value.toLowerCase() : "";
  const changedOnly = document.getElementById("changed-only")?.checked || false;
  const info = trace.actions[step.action] || {};
  const where = info.where ? el("a", {class: "source", href: info.where.href}, info.where.text) : null;
  const heading = step.closing ? `the step back to state ${trace.loop}` : `state ${selected}`;
  const changed = Object.keys(step.changes).length;
  const box = el("section", {id: "detail"},
    el("h2", {}, `${heading}: `, el("span", {class: "act" + (step.fault ? " fault" : "")}, step.label)),
    step.cycle ? el("div", {style: "color: var(--cycle)"}, "⟲ in the lasso's cycle") : null,
    where ? el("div", {}, "defined at ", where) : null,
    info.doc ? el("div", {class: "doc"}, info.doc) : null,
    el("div", {class: "tools"},
      el("input", {type: "search", id: "filter", placeholder: "filter variables (/)", value: filter,
                   oninput: () => redraw()}),
      el("label", {}, el("input", {type: "checkbox", id: "changed-only", onchange: () => redraw()}),
         ` only changed (${changed})`)),
    el("h3", {}, "state variables"), variableTable(trace.variables, step, filter, changedOnly),
    trace.ghosts.length ? el("h3", {}, "ghost variables (history kept for the properties)") : null,
    trace.ghosts.length ? variableTable(trace.ghosts, step, filter, changedOnly) : null,
    bookkeepingTable(step, filter, changedOnly));
  return [box, changedOnly];
}

function bookkeepingTable(step, filter, changedOnly) {
  // The model's machinery, folded away unless the reader opened it (kept across steps).
  if (!trace.bookkeeping.length) return null;
  const box = el("details", {id: "bookkeeping"},
    el("summary", {}, `bookkeeping (${trace.bookkeeping.length} variables of the model's machinery)`),
    variableTable(trace.bookkeeping, step, filter, changedOnly));
  box.open = document.getElementById("bookkeeping")?.open || false;
  return box;
}

function redraw() {
  const old = document.getElementById("detail");
  const focused = document.activeElement && document.activeElement.id;
  const [box, changedOnly] = detail();
  old.replaceWith(box);
  document.getElementById("changed-only").checked = changedOnly;
  if (focused === "filter") {
    const input = document.getElementById("filter");
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }
}

function select(i) {
  selected = Math.max(0, Math.min(trace.steps.length - 1, i));
  document.querySelectorAll("tr.step").forEach((row) =>
    row.classList.toggle("selected", Number(row.dataset.step) === selected));
  document.querySelector(`tr.step[data-step="${selected}"]`).scrollIntoView({block: "nearest"});
  history.replaceState(null, "", "#" + selected);
  redraw();
}

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") {
    if (e.key === "Escape") { e.target.value = ""; e.target.blur(); redraw(); }
    return;
  }
  const moves = {ArrowDown: 1, j: 1, ArrowUp: -1, k: -1};
  if (e.key in moves) select(selected + moves[e.key]);
  else if (e.key === "Home") select(Number(location.hash.slice(1)) || 0);       // page.html#17 opens at step 17
  else if (e.key === "End") select(trace.steps.length - 1);
  else if (e.key === "/") document.getElementById("filter").focus();
  else return;
  e.preventDefault();
});

document.body.append(header(), el("main", {}, timeline(), el("section", {id: "detail"})));
select(Number(location.hash.slice(1)) || 0);       // page.html#17 opens at step 17
