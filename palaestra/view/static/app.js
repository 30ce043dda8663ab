// The viewer's page: runs (plots), the episode list (filters, paging) and one episode.
//
// Everything a model or an env wrote reaches the page through text nodes (`el` turns
// strings into text, never markup); nothing here assigns innerHTML. The data come from the
// server's /api, or, in an exported copy, from the scripts in data/ (window.PalaestraData).
"use strict";

const STATIC = Boolean(window.PalaestraData && window.PalaestraData.static);
const PAGE_SIZE = 50;
const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04",
  "#db2777", "#4b5563", "#65a30d"];
const RUN_LETTERS = ["A", "B"];

// Which metrics share a plot; the rest go under "More metrics", one plot each.
const GROUPS = [
  {title: "Reward and its parts", test: k => k === "reward" || k.startsWith("reward/") ||
    k === "shaped_return"},
  {title: "Success (train and held-out)", test: k => ["success", "eval_success",
    "eval_greedy_success"].includes(k)},
  {title: "Held-out return", test: k => ["eval_return", "eval_greedy_return"].includes(k)},
  {title: "KL", test: k => k.startsWith("kl")},
  {title: "Entropy", test: k => k === "entropy"},
  {title: "Clip fraction", test: k => k === "clip_fraction"},
  {title: "Response length (sampled tokens per episode)",
    test: k => k === "sampled_tokens_per_episode"},
  {title: "Turns per episode", test: k => k === "turns" || k === "eval_turns"},
  {title: "Masked and dropped episodes", test: k => k === "masked" || k.startsWith("dropped")},
  {title: "Warm-start loss", test: k => k === "sft_loss"},
];

let runs = [];
let lastListHash = "#/episodes";

// A DOM element; string children become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (name === "style") node.style.cssText = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  return node;
}

function fmt(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value !== "number") return String(value);
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  const size = Math.abs(value);
  if (size !== 0 && (size < 1e-3 || size >= 1e5)) return value.toExponential(2);
  return value.toFixed(size < 1 ? 4 : 3).replace(/\.?0+$/, "");
}

function notesBox(notes) {
  if (!notes || !notes.length) return null;
  return el("ul", {class: "notes"}, notes.map(n => el("li", {}, n)));
}

// ---- data -------------------------------------------------------------------------------

async function getJSON(url) {
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

async function loadRuns() {
  if (STATIC) return window.PalaestraData.runList;
  return (await getJSON("api/runs")).runs;
}

// The server's filters (palaestra/view/runs.py), for an exported copy: an unknown step or
// return never passes a filter on it.
function matches(row, f) {
  const given = name => f[name] !== "" && f[name] !== undefined;
  if (f.env && row.env_id !== f.env) return false;
  if ((given("step_min") || given("step_max")) && row.step === null) return false;
  if (given("step_min") && row.step < Number(f.step_min)) return false;
  if (given("step_max") && row.step > Number(f.step_max)) return false;
  if (f.status === "masked" && !row.mask) return false;
  if (f.status && f.status !== "masked" && row.status !== f.status) return false;
  if (f.success && row.success !== (f.success === "true")) return false;
  if ((given("reward_min") || given("reward_max")) && row.reward === null) return false;
  if (given("reward_min") && row.reward < Number(f.reward_min)) return false;
  if (given("reward_max") && row.reward > Number(f.reward_max)) return false;
  if (f.text && !row.text.includes(f.text.toLowerCase())) return false;
  return true;
}

async function loadPage(run, filters, offset) {
  if (STATIC) {
    const found = runs[run].rows.filter(row => matches(row, filters));
    return {rows: found.slice(offset, offset + PAGE_SIZE), total: found.length, exact: true};
  }
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== "") query.set(name, value);
  query.set("offset", offset);
  query.set("limit", PAGE_SIZE);
  return getJSON(`api/runs/${run}/episodes?${query}`);
}

function loadEpisode(run, index) {
  if (!STATIC) return getJSON(`api/runs/${run}/episodes/${index}`);
  const key = `${run}/${index}`;
  const data = window.PalaestraData;
  if (data.episodes[key]) return Promise.resolve(data.episodes[key]);
  return new Promise((resolve, reject) => {
    const script = el("script", {src: `data/${run}/${index}.js`});
    script.onload = () => data.episodes[key] ? resolve(data.episodes[key])
      : reject(new Error(`no episode ${index}`));
    script.onerror = () => reject(new Error(`no episode ${index} in this copy`));
    document.head.append(script);
  });
}

// ---- plots ------------------------------------------------------------------------------

// One SVG line plot; series: [{label, run, color, points: [[step, value], ...]}].
function plot(title, series) {
  const width = 520, height = 240, left = 56, right = 12, top = 12, bottom = 30;
  const xs = series.flatMap(s => s.points.map(p => p[0]));
  const ys = series.flatMap(s => s.points.map(p => p[1]));
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  // A flat line (within rounding) gets a band around it instead of a zero-height axis.
  if (y1 - y0 <= 1e-6 * Math.max(1, Math.abs(y0))) {
    const pad = Math.abs(y0) / 10 || 0.5;
    y0 -= pad;
    y1 += pad;
  }
  const digits = Math.max(0, Math.min(6, 1 - Math.floor(Math.log10((y1 - y0) / 4))));
  const sx = x => left + (x - x0) / (x1 - x0) * (width - left - right);
  const sy = y => top + (y1 - y) / (y1 - y0) * (height - top - bottom);
  const chart = svg("svg", {viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img"});
  for (let i = 0; i <= 4; i++) {
    const y = y0 + (y1 - y0) * i / 4;
    chart.append(svg("line", {x1: left, x2: width - right, y1: sy(y), y2: sy(y), class: "grid"}));
    const label = svg("text", {x: left - 6, y: sy(y) + 4, "text-anchor": "end", class: "tick"});
    label.textContent = y.toFixed(digits);
    chart.append(label);
  }
  const steps = [...new Set(xs)].sort((a, b) => a - b);
  const every = Math.max(1, Math.ceil(steps.length / 8));
  steps.filter((_, i) => i % every === 0).forEach(x => {
    const label = svg("text", {x: sx(x), y: height - 10, "text-anchor": "middle", class: "tick"});
    label.textContent = fmt(x);
    chart.append(label);
  });
  for (const s of series) {
    const d = s.points.map((p, i) => `${i ? "L" : "M"}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`);
    chart.append(svg("path", {d: d.join(""), stroke: s.color, class: `line run-${s.run}`,
      "data-series": s.label}));
    if (s.points.length <= 60) {
      for (const p of s.points) {
        chart.append(svg("circle", {cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: s.color,
          class: "point"}));
      }
    }
  }
  const cursor = svg("line", {y1: top, y2: height - bottom, class: "cursor", visibility: "hidden"});
  chart.append(cursor);
  const tip = el("div", {class: "tip", hidden: true});
  const overlay = svg("rect", {x: left, y: top, width: width - left - right,
    height: height - top - bottom, class: "overlay"});
  overlay.addEventListener("mousemove", event => {
    const box = chart.getBoundingClientRect();
    const x = x0 + ((event.clientX - box.left) * width / box.width - left) /
      (width - left - right) * (x1 - x0);
    const step = steps.reduce((a, b) => Math.abs(b - x) < Math.abs(a - x) ? b : a);
    cursor.setAttribute("x1", sx(step));
    cursor.setAttribute("x2", sx(step));
    cursor.setAttribute("visibility", "visible");
    tip.replaceChildren(el("b", {}, `step ${fmt(step)}`), ...series.flatMap(s => {
      const point = s.points.find(p => p[0] === step);
      return point ? [el("div", {}, el("span", {class: "swatch", style: `background:${s.color}`}),
        `${s.label}: ${fmt(point[1])}`)] : [];
    }));
    tip.hidden = false;
    tip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 160)}px`;
  });
  overlay.addEventListener("mouseleave", () => {
    cursor.setAttribute("visibility", "hidden");
    tip.hidden = true;
  });
  chart.append(overlay);
  const legend = el("div", {class: "legend"}, series.map(s => el("span", {class: "item"},
    el("span", {class: `swatch run-${s.run}`, style: `background:${s.color}`}), s.label)));
  return el("figure", {class: "plot"}, el("figcaption", {}, title),
    el("div", {class: "chart-box"}, chart, tip), legend);
}

function seriesFor(keys) {
  const out = [];
  keys.forEach((key, k) => {
    runs.forEach((run, r) => {
      const points = run.metrics
        .filter(m => typeof m[key] === "number" && typeof m.step === "number")
        .map(m => [m.step, m[key]]);
      if (!points.length) return;
      const label = runs.length > 1 ? `${RUN_LETTERS[r]}: ${key}` : key;
      out.push({label, run: r, color: COLORS[k % COLORS.length], points});
    });
  });
  return out;
}

function numericKeys() {
  const keys = new Set();
  for (const run of runs) {
    for (const record of run.metrics) {
      for (const [key, value] of Object.entries(record)) {
        if (key !== "step" && typeof value === "number") keys.add(key);
      }
    }
  }
  return [...keys];
}

// ---- pages ------------------------------------------------------------------------------

function runCard(run, r) {
  const config = run.config || {};
  const facts = [
    ["folder", run.path],
    ["env", config.env_id ? `${config.env_id} ${JSON.stringify(config.env_kwargs || {})}` : "–"],
    ["algorithm", config.algorithm ? `${config.algorithm} / ${config.estimator}` : "–"],
    ["model", config.model === "" ? "the tiny model" : config.model],
    ["RL steps", run.metrics.filter(m => m.phase === "rl").length],
    ["episodes", run.episodes],
  ];
  return el("section", {class: "card run-card", "data-run": r},
    el("h2", {}, el("span", {class: `badge run-${r}`}, RUN_LETTERS[r]), run.name),
    el("dl", {}, facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, fmt(v))])),
    notesBox(run.notes));
}

function configDiff() {
  const [a, b] = runs.map(run => run.config || {});
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter(k => JSON.stringify(a[k]) !== JSON.stringify(b[k]) && k !== "output_dir");
  if (!keys.length) return el("p", {class: "muted"}, "The two configs are the same.");
  return el("table", {class: "diff"},
    el("tr", {}, el("th", {}, "setting"), runs.map((run, r) =>
      el("th", {}, `${RUN_LETTERS[r]}: ${run.name}`))),
    keys.map(k => el("tr", {}, el("td", {}, k), el("td", {}, JSON.stringify(a[k]) ?? "–"),
      el("td", {}, JSON.stringify(b[k]) ?? "–"))));
}

function runsPage() {
  const main = el("div", {id: "runs-page"});
  main.append(el("div", {class: runs.length > 1 ? "side-by-side" : ""}, runs.map(runCard)));
  if (runs.length > 1) {
    main.append(el("section", {class: "card"}, el("h2", {}, "Settings that differ"),
      configDiff()));
  }
  const keys = numericKeys();
  const used = new Set();
  const plots = [];
  for (const group of GROUPS) {
    const chosen = keys.filter(group.test);
    chosen.forEach(k => used.add(k));
    const series = seriesFor(chosen);
    if (series.length) plots.push(plot(group.title, series));
  }
  if (!plots.length) {
    main.append(el("p", {class: "muted"}, "No metrics to plot yet."));
  }
  main.append(el("div", {class: "plots"}, plots));
  const rest = keys.filter(k => !used.has(k)).sort();
  if (rest.length) {
    main.append(el("details", {class: "more"}, el("summary", {}, `More metrics (${rest.length})`),
      el("div", {class: "plots"}, rest.map(k => plot(k, seriesFor([k]))))));
  }
  return main;
}

function readFilters(params) {
  const names = ["env", "step_min", "step_max", "status", "success", "reward_min",
    "reward_max", "text"];
  return Object.fromEntries(names.map(n => [n, params.get(n) || ""]));
}

function select(name, value, options) {
  return el("select", {name}, options.map(([v, label]) =>
    el("option", {value: v, selected: v === value}, label)));
}

async function episodesPage(params) {
  const run = Math.min(Number(params.get("run") || 0), runs.length - 1);
  const offset = Math.max(0, Number(params.get("offset") || 0));
  const filters = readFilters(params);
  const info = runs[run];
  const form = el("form", {class: "filters card", id: "filters"},
    runs.length > 1 ? el("label", {}, "run ", select("run", String(run),
      runs.map((r, i) => [String(i), `${RUN_LETTERS[i]}: ${r.name}`]))) : null,
    el("label", {}, "env ", select("env", filters.env,
      [["", "any"], ...info.envs.map(e => [e, e])])),
    el("label", {}, "step ", el("input", {name: "step_min", type: "number", value: filters.step_min,
      placeholder: "from", class: "short"}), "–", el("input", {name: "step_max", type: "number",
      value: filters.step_max, placeholder: "to", class: "short"})),
    el("label", {}, "status ", select("status", filters.status,
      [["", "any"], ...info.statuses.map(s => [s, s]), ["masked", "masked"]])),
    el("label", {}, "success ", select("success", filters.success,
      [["", "any"], ["true", "yes"], ["false", "no"]])),
    el("label", {}, "return ", el("input", {name: "reward_min", type: "number", step: "any",
      value: filters.reward_min, placeholder: "min", class: "short"}), "–",
    el("input", {name: "reward_max", type: "number", step: "any", value: filters.reward_max,
      placeholder: "max", class: "short"})),
    el("label", {}, "text ", el("input", {name: "text", type: "search", value: filters.text,
      placeholder: "in the messages"})),
    el("button", {type: "submit"}, "Filter"));
  form.addEventListener("submit", event => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (value !== "") query.set(name, value);
    location.hash = `#/episodes?${query}`;
  });
  const container = el("div", {id: "episodes-page"}, form);
  let page;
  try {
    page = await loadPage(run, filters, offset);
  } catch (error) {
    container.append(el("p", {class: "error"}, String(error.message || error)));
    return container;
  }
  const shownTo = offset + page.rows.length;
  const total = page.exact ? fmt(page.total) : `at least ${fmt(page.total)}`;
  container.append(el("p", {id: "count"}, page.rows.length
    ? `Episodes ${fmt(offset + 1)}–${fmt(shownTo)} of ${total} matching (${fmt(info.episodes)} in the run)`
    : `No episode matches (${fmt(info.episodes)} in the run).`));
  const head = ["#", "step", "env", "status", "success", "return", "turns", "sampled tokens"];
  container.append(el("table", {class: "episodes", id: "episode-table"},
    el("thead", {}, el("tr", {}, head.map(h => el("th", {}, h)))),
    el("tbody", {}, page.rows.map(row => el("tr", {class: row.mask ? "masked" : ""},
      el("td", {}, el("a", {href: `#/episode/${run}/${row.index}`}, row.index)),
      el("td", {}, fmt(row.step)), el("td", {}, row.env_id),
      el("td", {}, row.mask ? `${row.status} (masked)` : row.status),
      el("td", {}, fmt(row.success)), el("td", {class: "num"}, fmt(row.reward)),
      el("td", {class: "num"}, fmt(row.turns)), el("td", {class: "num"},
        fmt(row.sampled_tokens)))))));
  const move = delta => {
    const query = new URLSearchParams(params);
    query.set("offset", Math.max(0, offset + delta));
    return `#/episodes?${query}`;
  };
  container.append(el("nav", {class: "pager"},
    offset > 0 ? el("a", {href: move(-PAGE_SIZE), id: "prev"}, "← previous") : null,
    (page.exact ? shownTo < page.total : page.total > shownTo)
      ? el("a", {href: move(PAGE_SIZE), id: "next"}, "next →") : null));
  return container;
}

function messageView(message, turn, episode) {
  const role = ["system", "user", "assistant", "tool"].includes(message.role)
    ? message.role : "other";
  const header = [el("span", {class: "role"}, String(message.role))];
  if (turn !== null) {
    const parts = (episode.reward_parts || [])[turn] || {};
    header.push(el("span", {class: "turn"}, `turn ${turn + 1}`),
      el("span", {class: "reward"}, `reward ${fmt((episode.turn_rewards || [])[turn])}`),
      Object.entries(parts).map(([k, v]) => el("span", {class: "part"}, `${k} ${fmt(v)}`)),
      (episode.finish_reasons || [])[turn]
        ? el("span", {class: "muted"}, `finish: ${episode.finish_reasons[turn]}`) : null);
  }
  if (message.tool_call_id || message.name) {
    header.push(el("span", {class: "muted"}, [message.name, message.tool_call_id]
      .filter(Boolean).join(" · ")));
  }
  const body = [el("pre", {class: "content"}, message.content)];
  if (message.cut) {
    body.push(el("p", {class: "note"}, `(cut: ${fmt(message.cut)} characters in all)`));
  }
  for (const call of message.tool_calls || []) {
    const fn = call.function || call;
    body.push(el("div", {class: "tool-call"}, el("b", {}, `tool call ${fn.name || ""}`),
      el("pre", {}, typeof fn.arguments === "string" ? fn.arguments
        : JSON.stringify(fn.arguments ?? call, null, 2))));
  }
  return el("article", {class: `message role-${role}`}, el("header", {}, header), body);
}

function partsTable(episode) {
  const parts = episode.reward_parts || [];
  const names = [...new Set(parts.flatMap(p => Object.keys(p || {})))];
  const totals = names.map(n => parts.reduce((sum, p) => sum + ((p || {})[n] || 0), 0));
  return el("table", {class: "parts", id: "reward-parts"},
    el("tr", {}, el("th", {}, "turn"), names.map(n => el("th", {}, n)), el("th", {}, "reward")),
    parts.map((p, t) => el("tr", {}, el("td", {}, t + 1),
      names.map(n => el("td", {class: "num"}, fmt((p || {})[n]))),
      el("td", {class: "num"}, fmt((episode.turn_rewards || [])[t])))),
    el("tr", {class: "total"}, el("td", {}, "episode"),
      totals.map(v => el("td", {class: "num"}, fmt(v))), el("td", {class: "num"},
        fmt(episode.reward))));
}

function logprob(value) {
  return typeof value === "number" ? value.toFixed(4) : "–";
}

function tokensView(tokens) {
  const spans = tokens.ids.map((id, i) => {
    const inCompletion = i >= tokens.prompt_length;
    const j = i - tokens.prompt_length;
    const sampled = inCompletion && tokens.mask[j] === 1;
    const kind = sampled ? "sampled" : inCompletion ? "env" : "prompt";
    const text = tokens.text ? tokens.text[i] : `[${id}]`;
    const title = sampled
      ? `token ${i} · id ${id} · sampled · log-prob ${logprob(tokens.logprobs[j])}`
      : `token ${i} · id ${id} · ${inCompletion ? "env, tool or template" : "prompt"}: not trained on`;
    return el("span", {class: `tok ${kind}`, title}, text === "" ? "∅" : text);
  });
  const legend = el("p", {class: "legend"},
    el("span", {class: "tok sampled"}, "sampled by the policy (loss mask 1)"), " ",
    el("span", {class: "tok env"}, "env, tool or template (mask 0)"), " ",
    el("span", {class: "tok prompt"}, "prompt"), " · hover a token for its id and log-prob");
  const shown = tokens.ids.length < tokens.total
    ? el("p", {class: "note"}, `Showing ${fmt(tokens.ids.length)} of ${fmt(tokens.total)} tokens.`)
    : null;
  return [legend, shown, el("div", {class: "tokens", id: "tokens"}, spans)];
}

// The env's final verdict: status and score, then the reason in the verifier's words.
function verdictView(verdict) {
  if (!verdict) {
    return el("p", {class: "muted"}, "No verdict: the episode ended without one (a turn " +
      "limit, too many invalid actions), did not end, or was recorded before verdicts were kept.");
  }
  const facts = [["status", verdict.status], ["score", verdict.score],
    ["verifier", verdict.verifier || null], ["answer", verdict.answer]];
  return [el("dl", {class: "facts"}, facts.flatMap(([k, v]) => [el("dt", {}, k),
    el("dd", {class: `verdict-${k}`}, fmt(v))])),
  el("p", {class: "reason"}, verdict.reason || "(the verifier gave no reason)")];
}

async function episodePage(run, index) {
  const episode = await loadEpisode(run, index);
  const facts = [
    ["run", runs.length > 1 ? `${RUN_LETTERS[run]}: ${runs[run].name}` : runs[run].name],
    ["env", `${episode.env_id} ${JSON.stringify(episode.env_kwargs || {})}`],
    ["seed", episode.seed], ["step", episode.step], ["group", episode.group_id],
    ["sample", episode.sample_index], ["status", episode.status], ["masked", episode.mask],
    ["success", episode.success], ["return", episode.reward], ["turns", episode.turns],
    ["ended", episode.terminated ? "terminated" : episode.truncated
      ? `truncated (${episode.truncation || "limit"})` : "did not end"],
    ["seconds", episode.seconds],
  ];
  if (episode.error) facts.push(["error", episode.error]);
  const messages = [];
  let turn = 0;
  for (const message of episode.messages) {
    const isTurn = message.role === "assistant" && turn < (episode.turn_rewards || []).length;
    messages.push(messageView(message, isTurn ? turn : null, episode));
    if (isTurn) turn += 1;
  }
  const raw = STATIC ? null
    : el("a", {href: `api/runs/${run}/episodes/${index}/raw`, target: "_blank"}, "raw JSON");
  return el("div", {id: "episode-page"},
    el("p", {}, el("a", {href: lastListHash}, "← episodes"), " ", raw),
    el("h1", {}, `Episode ${index} · ${episode.env_id}`),
    notesBox(episode.notes),
    el("section", {class: "card"}, el("dl", {class: "facts"},
      facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, fmt(v))]))),
    el("section", {class: "card", id: "verdict"}, el("h2", {}, "Verdict"),
      verdictView(episode.verdict)),
    el("section", {class: "card"}, el("h2", {}, "Reward parts per turn"), partsTable(episode)),
    el("section", {class: "card", id: "conversation"}, el("h2", {}, "Conversation"), messages),
    el("section", {class: "card"}, el("h2", {}, "Tokens and loss mask"),
      tokensView(episode.tokens)));
}

// ---- routing ----------------------------------------------------------------------------

async function route() {
  const main = document.getElementById("main");
  const hash = location.hash || "#/";
  const [path, query] = hash.slice(1).split("?");
  const params = new URLSearchParams(query || "");
  document.getElementById("nav-runs").classList.toggle("active", path === "/");
  document.getElementById("nav-episodes").classList.toggle("active", path !== "/");
  let page;
  try {
    const match = path.match(/^\/episode\/(\d+)\/(\d+)$/);
    if (match) page = await episodePage(Number(match[1]), Number(match[2]));
    else if (path === "/episodes") {
      lastListHash = hash;
      page = await episodesPage(params);
    } else page = runsPage();
  } catch (error) {
    page = el("p", {class: "error"}, `Could not show this page: ${error.message || error}`);
  }
  main.replaceChildren(page);
  document.body.dataset.ready = hash;
}

async function start() {
  try {
    runs = await loadRuns();
  } catch (error) {
    document.getElementById("main").replaceChildren(
      el("p", {class: "error"}, `Could not load the runs: ${error.message || error}`));
    return;
  }
  document.getElementById("run-names").replaceChildren(...runs.map((run, r) =>
    el("span", {class: `badge run-${r}`, title: run.path}, `${RUN_LETTERS[r]}: ${run.name}`)));
  window.addEventListener("hashchange", route);
  await route();
}

start();
