/* SPDX-License-Identifier: MIT */
/*
 * The flame graph page around html.c's data (html.h): markup and style
 * before it, the script after it.  The script reads the tree, lays it out
 * (root on top, one row per depth), draws it on a canvas (frames under
 * MINPX pixels wide are skipped with their subtrees), and after each
 * drawing lists the names drawn in <pre id="drawn"> and their number in
 * body's data-drawn-frames, which the tests read (with data-matched, the
 * samples a search matched; "#search=RE" in the address searches on
 * load, "#zoom=NAME" zooms on NAME's first frame).  With the data's
 * "timeline" (html-timeline.c), a canvas above the flame graph shows a
 * lane per thread (their labels in <pre id="lanes">); a range dragged over
 * it, or "#time=START-END" in seconds, redraws the flame graph from the
 * samples in it (their number in body's data-range-samples).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

/* clang-format off */
static const char page_head[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n"
	"<head>\n"
	"<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<title>";

static const char page_style[] =
	"</title>\n"
	"<style>\n"
	"body { margin: 0; font: 13px Verdana, \"DejaVu Sans\", Arial, sans-serif; color: #222; background: #fafafa; }\n"
	"header { display: flex; flex-wrap: wrap; align-items: center; gap: 12px; padding: 8px 12px; background: #f0eee8; border-bottom: 1px solid #ccc; }\n"
	"h1 { font-size: 16px; margin: 0; font-weight: bold; }\n"
	"#search { width: 22em; padding: 3px 6px; }\n"
	"#match { color: #a000a0; font-weight: bold; }\n"
	"#info, #status { padding: 4px 12px; color: #555; }\n"
	"#status { min-height: 1.3em; font-family: monospace; white-space: pre; overflow: hidden; text-overflow: ellipsis; }\n"
	"#main { display: flex; flex-wrap: wrap; align-items: flex-start; }\n"
	"#wrap { padding: 0 12px 12px; flex: 1 1 640px; min-width: 0; }\n"
	"#tlwrap { padding: 0 12px 8px; }\n"
	"#tl { cursor: crosshair; border: 1px solid #ccc; }\n"
	"#range { padding: 2px 0; color: #555; }\n"
	"canvas { display: block; }\n"
	"#tip { position: absolute; display: none; pointer-events: none; background: #fffff0; border: 1px solid #888; padding: 4px 8px; font: 12px monospace; white-space: pre-wrap; max-width: 640px; word-break: break-all; box-shadow: 2px 2px 4px rgba(0,0,0,.2); }\n";

static const char page_body[] =
	"</style>\n"
	"</head>\n"
	"<body>\n"
	"<header><h1 id=\"title\">profrun flame graph</h1>\n"
	"<input id=\"search\" type=\"search\" placeholder=\"search (regular expression)\" aria-label=\"search\">\n"
	"<button id=\"reset\" type=\"button\">reset zoom</button>\n"
	"<span id=\"match\"></span></header>\n"
	"<div id=\"info\"></div>\n"
	"<div id=\"status\"></div>\n"
	"<div id=\"tlwrap\" hidden><div id=\"range\"></div><canvas id=\"tl\"></canvas></div>\n"
	"<pre id=\"lanes\" hidden></pre>\n"
	"<div id=\"main\"><div id=\"wrap\"><canvas id=\"fg\"></canvas></div>\n";

static const char page_data[] =
	"</div>\n"
	"<div id=\"tip\"></div>\n"
	"<pre id=\"drawn\" hidden></pre>\n"
	"<pre id=\"frames\" hidden></pre>\n"
	"<script type=\"application/json\" id=\"profrun-data\">\n";

static const char page_core[] =
	"\n"
	"}\n"
	"</script>\n"
	"<script>\n"
	"(function () {\n"
	"'use strict';\n"
	"var D = JSON.parse(document.getElementById('profrun-data').textContent);\n"
	"var ROW = 17, MINPX = 0.3, FONT = '12px Verdana, DejaVu Sans, Arial, sans-serif';\n"
	"var N, key, val, x0, self, dep, par, end, maxDepth, ROWS, i, j, d;\n"
	"var NAMES = D.names, MODOF = D.module_of, MODS = D.modules;\n"
	"// the tree of NODES (three numbers a node, in preorder: function * 2 +\n"
	"// inlined, samples, depth) under a root of TOTAL samples\n"
	"function load(nodes, total) {\n"
	"  var stack = [0], nextx = [0];\n"
	"  N = Math.floor(nodes.length / 3); maxDepth = 0;\n"
	"  key = new Float64Array(N + 1); val = new Float64Array(N + 1);\n"
	"  x0 = new Float64Array(N + 1); self = new Float64Array(N + 1);\n"
	"  dep = new Int32Array(N + 1); par = new Int32Array(N + 1);\n"
	"  end = new Int32Array(N + 1);\n"
	"  key[0] = -1; val[0] = total; par[0] = -1;\n"
	"  for (i = 1; i <= N; i++) {\n"
	"    key[i] = nodes[3 * i - 3]; val[i] = nodes[3 * i - 2];\n"
	"    d = Math.max(1, Math.min(nodes[3 * i - 1], stack.length));\n"
	"    while (stack.length > d) { end[stack.pop()] = i; nextx.pop(); }\n"
	"    dep[i] = d; par[i] = stack[stack.length - 1];\n"
	"    x0[i] = nextx[nextx.length - 1];\n"
	"    nextx[nextx.length - 1] += val[i];\n"
	"    stack.push(i); nextx.push(x0[i]);\n"
	"    if (d > maxDepth) maxDepth = d;\n"
	"  }\n"
	"  while (stack.length) end[stack.pop()] = N + 1;\n"
	"  for (i = 0; i <= N; i++) self[i] = val[i];\n"
	"  for (i = 1; i <= N; i++) self[par[i]] -= val[i];\n"
	"  ROWS = Math.min(maxDepth + 1, 1900);\n"
	"}\n"
	"load(D.nodes, D.total);\n"
	"var $ = function (id) { return document.getElementById(id); };\n"
	"var canvas = $('fg'), ctx = canvas.getContext('2d'), tip = $('tip');\n"
	"var width = 0, zoom = 0, rows = [], charW = 7, colors = {};\n"
	"var fnMatch = null, matched = 0, hover = -1;\n"
	"\n"
	"function fnOf(i) { return Math.floor(key[i] / 2); }\n"
	"function name(i) { return i === 0 ? 'all' : NAMES[fnOf(i)]; }\n"
	"function moduleOf(i) {\n"
	"  var m = i === 0 ? null : MODOF[fnOf(i)];\n"
	"  if (m === null || m === undefined) return '';\n"
	"  return m < 0 ? MODS[-m - 1] : MODS[m];\n"
	"}\n"
	"function inlined(i) { return i > 0 && key[i] % 2 === 1; }\n"
	"function pct(v, t) { return t > 0 ? (100 * v / t).toFixed(2) + '%' : '0%'; }\n"
	"function hash(s) {\n"
	"  var h = 2166136261;\n"
	"  for (var k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 16777619);\n"
	"  return h >>> 0;\n"
	"}\n"
	"function color(i) {\n"
	"  if (i === 0) return 'rgb(200,200,200)';\n"
	"  var c = colors[key[i]];\n"
	"  if (c) return c;\n"
	"  var f = fnOf(i), s = NAMES[f], h = hash(s), m = MODOF[f];\n"
	"  var a = h % 50, b = (h >>> 8) % 130, e = (h >>> 16) % 50;\n"
	"  if (s.charAt(0) === '[') c = 'rgb(' + (180 + a / 3) + ',' + (180 + a / 3) + ',' + (180 + a / 3) + ')';\n"
	"  else if (inlined(i)) c = 'rgb(' + (70 + a) + ',' + (160 + b / 3) + ',' + (205 + e) + ')';\n"
	"  else if (m >= 0) c = 'rgb(' + (90 + a) + ',' + (180 + b / 3) + ',' + (60 + e) + ')';\n"
	"  else c = 'rgb(' + (205 + a) + ',' + (70 + b) + ',' + (30 + e) + ')';\n"
	"  colors[key[i]] = c;\n"
	"  return c;\n"
	"}\n"
	"function label(i, w) {\n"
	"  var s = name(i), max = Math.floor((w - 6) / charW);\n"
	"  if (inlined(i)) s += ' [i]';\n"
	"  if (max < 3) return '';\n"
	"  if (s.length > max) s = s.slice(0, max - 2) + '..';\n"
	"  while (s.length > 3 && ctx.measureText(s).width > w - 6) s = s.slice(0, s.length - 3) + '..';\n"
	"  return s;\n"
	"}\n"
	"function isMatch(i) { return fnMatch !== null && i > 0 && fnMatch[fnOf(i)] === 1; }\n"
	"\n"
	"function rect(i, x, w, drawn) {\n"
	"  var y = dep[i] * ROW, anc = i !== 0 && zoom !== 0 && dep[i] < dep[zoom];\n"
	"  var fill = isMatch(i) ? 'rgb(230,0,230)' : V.color(i);\n"
	"  ctx.fillStyle = fill;\n"
	"  ctx.globalAlpha = anc ? 0.55 : 1;\n"
	"  ctx.fillRect(x, y, w > 2 ? w - 1 : w, ROW - 1);\n"
	"  ctx.globalAlpha = 1;\n"
	"  var t = w > 3 * charW ? label(i, w) : '';\n"
	"  if (t) { ctx.fillStyle = V.ink ? V.ink(i) : '#000'; ctx.fillText(t, x + 3, y + ROW / 2); }\n"
	"  (rows[dep[i]] = rows[dep[i]] || []).push([x, w, i]);\n"
	"  if (!drawn[name(i)]) drawn[name(i)] = [x, y, w, ROW - 1, fill, i];\n"
	"}\n"
	"\n"
	"function drawFlame(drawn) {\n"
	"  var zx = x0[zoom], zv = val[zoom] || 1, scale = width / zv, n = 0, a, w, k, r;\n"
	"  rows = [];\n"
	"  ctx.clearRect(0, 0, width, ROWS * ROW);\n"
	"  ctx.font = FONT; ctx.textBaseline = 'middle';\n"
	"  for (a = zoom; a >= 0; a = par[a]) { rect(a, 0, width, drawn); n++; }\n"
	"  for (i = zoom + 1; i < end[zoom];) {\n"
	"    w = val[i] * scale;\n"
	"    if (w < MINPX || dep[i] >= ROWS) { i = end[i]; continue; }\n"
	"    rect(i, (x0[i] - zx) * scale, w, drawn); n++;\n"
	"    i++;\n"
	"  }\n"
	"  r = canvas.getBoundingClientRect();\n"
	"  for (k in drawn) { drawn[k][0] += r.left + window.scrollX; drawn[k][1] += r.top + window.scrollY; }\n"
	"  return n;\n"
	"}\n"
	"\n"
	"/* The names drawn, and where the first frame of each is on the page\n"
	" * (name, x, y, width, height, colour, the page's note), for the tests. */\n"
	"function draw() {\n"
	"  var drawn = {}, n = V.draw ? V.draw(drawn) : drawFlame(drawn), out = [], k, f;\n"
	"  for (k in drawn) {\n"
	"    f = drawn[k];\n"
	"    out.push([k, Math.round(f[0]), Math.round(f[1]), Math.round(f[2]), Math.round(f[3]), f[4],\n"
	"      V.note ? V.note(f[5]) : ''].join('\\t'));\n"
	"  }\n"
	"  $('drawn').textContent = Object.keys(drawn).join('\\n');\n"
	"  $('frames').textContent = out.join('\\n');\n"
	"  document.body.setAttribute('data-drawn-frames', String(n));\n"
	"  $('reset').disabled = zoom === 0;\n"
	"}\n"
	"\n"
	"function resize() {\n"
	"  var dpr = window.devicePixelRatio || 1;\n"
	"  width = Math.max(200, $('wrap').clientWidth - 24);\n"
	"  canvas.width = Math.floor(width * dpr);\n"
	"  canvas.height = Math.floor(ROWS * ROW * dpr);\n"
	"  canvas.style.width = width + 'px';\n"
	"  canvas.style.height = ROWS * ROW + 'px';\n"
	"  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
	"  ctx.font = FONT;\n"
	"  charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_0123456789').width / 37;\n"
	"  draw();\n"
	"}\n"
	"\n"
	"function at(ev) {\n"
	"  var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;\n"
	"  var row = rows[Math.floor(y / ROW)], lo = 0, hi, mid;\n"
	"  if (!row) return -1;\n"
	"  hi = row.length - 1;\n"
	"  while (lo <= hi) {\n"
	"    mid = (lo + hi) >> 1;\n"
	"    if (x < row[mid][0]) hi = mid - 1;\n"
	"    else if (x >= row[mid][0] + row[mid][1]) lo = mid + 1;\n"
	"    else return row[mid][2];\n"
	"  }\n"
	"  return -1;\n"
	"}\n"
	"\n"
	"function showTip(ev, i) {\n"
	"  var t = name(i) + (inlined(i) ? '  [inlined]' : '');\n"
	"  var m = moduleOf(i), lines = [t];\n"
	"  if (m) lines.push(m);\n"
	"  lines.push(val[i] + ' samples, ' + pct(val[i], val[0]) + ' of all' +\n"
	"    (zoom ? ', ' + pct(val[i], val[zoom]) + ' of ' + name(zoom) : ''));\n"
	"  lines.push('self: ' + self[i] + ' (' + pct(self[i], val[0]) + ')');\n"
	"  if (V.tip) lines = lines.concat(V.tip(i));\n"
	"  tip.textContent = lines.join('\\n');\n"
	"  tip.style.display = 'block';\n"
	"  var x = ev.pageX + 14, y = ev.pageY + 14;\n"
	"  if (x + tip.offsetWidth > window.innerWidth + window.scrollX - 8)\n"
	"    x = Math.max(0, ev.pageX - tip.offsetWidth - 14);\n"
	"  tip.style.left = x + 'px'; tip.style.top = y + 'px';\n"
	"  $('status').textContent = t + ': ' + val[i] + ' samples (' + pct(val[i], val[0]) + ')';\n"
	"}\n"
	"\n"
	"canvas.addEventListener('mousemove', function (ev) {\n"
	"  var i = at(ev);\n"
	"  hover = i;\n"
	"  canvas.style.cursor = i >= 0 ? 'pointer' : 'default';\n"
	"  if (i >= 0) showTip(ev, i); else tip.style.display = 'none';\n"
	"});\n"
	"canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });\n"
	"canvas.addEventListener('click', function (ev) {\n"
	"  var i = at(ev);\n"
	"  if (i < 0) return;\n"
	"  zoom = i === zoom && i !== 0 ? par[i] : i;\n"
	"  draw();\n"
	"});\n"
	"$('reset').addEventListener('click', function () { zoom = 0; draw(); });\n"
	"document.addEventListener('keydown', function (ev) {\n"
	"  if (ev.key === 'Escape') { zoom = 0; draw(); }\n"
	"  if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') { ev.preventDefault(); $('search').focus(); }\n"
	"});\n"
	"\n"
	"function search(term) {\n"
	"  var re = null, f, sum = 0;\n"
	"  fnMatch = null;\n"
	"  if (term) {\n"
	"    try { re = new RegExp(term, 'i'); } catch (e) {\n"
	"      re = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&'), 'i');\n"
	"    }\n"
	"    fnMatch = new Uint8Array(NAMES.length);\n"
	"    for (f = 0; f < NAMES.length; f++) fnMatch[f] = re.test(NAMES[f]) ? 1 : 0;\n"
	"    for (i = 1; i <= N;) {\n"
	"      if (fnMatch[fnOf(i)] === 1) { sum += val[i]; i = end[i]; } else i++;\n"
	"    }\n"
	"  }\n"
	"  matched = sum;\n"
	"  $('match').textContent = term ? 'matched: ' + sum + ' samples (' + pct(sum, val[0]) + ')' : '';\n"
	"  document.body.setAttribute('data-matched', String(sum));\n"
	"  draw();\n"
	"}\n"
	"$('search').addEventListener('input', function () { search(this.value); });\n"
	"\n"
	"var V = {color: color, tip: null, note: null, draw: null, info: null, ink: null,\n"
	"  title: 'profrun flame graph: ' + D.title};\n";

/* Then the page's own script, then: */
static const char page_start[] =
	"document.title = 'profrun: ' + D.title;\n"
	"$('title').textContent = V.title;\n"
	"var info = D.total + ' samples';\n"
	"if (D.has_stacks) {\n"
	"  info += ' with a stack' + (D.samples > D.stacks ? ' (of ' + D.samples + ')' : '');\n"
	"  if (D.truncated > 0) info += ', ' + D.truncated + ' (' + pct(D.truncated, D.stacks) + ') cut short before the thread\\'s start';\n"
	"} else info += ', no call stacks (record with profrun -g): each function stands alone';\n"
	"if (D.min > 1) info += '; frames under ' + D.min + ' samples are left out';\n"
	"if (maxDepth + 1 > ROWS) info += '; frames deeper than ' + ROWS + ' are not drawn';\n"
	"$('info').textContent = V.info ? V.info(info) : info + '.  Click a frame to zoom in (again to zoom out), Esc to reset; the search takes a regular expression.';\n"
	"window.addEventListener('resize', resize);\n"
	"resize();\n"
	"\n"
	"// The timeline: a lane per thread, each sample a mark at its time in the\n"
	"// color of its function; a range dragged over it (or #time=START-END in\n"
	"// seconds) redraws the flame graph from the samples in it, with the\n"
	"// timeline's own names; a double click goes back to the whole profile.\n"
	"var T = D.timeline, LANE = 18, tl = $('tl'), tctx = tl.getContext('2d');\n"
	"var sel = null, drag = null, tlw = 0;\n"
	"function tlX(ms) { return T.end > 0 ? ms / T.end * tlw : 0; }\n"
	"function tlDraw() {\n"
	"  var dpr = window.devicePixelRatio || 1, l, k, x, f, s;\n"
	"  tlw = Math.max(200, $('wrap').clientWidth - 24);\n"
	"  tl.width = Math.floor(tlw * dpr); tl.height = Math.floor(T.lanes.length * LANE * dpr);\n"
	"  tl.style.width = tlw + 'px'; tl.style.height = T.lanes.length * LANE + 'px';\n"
	"  tctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
	"  tctx.clearRect(0, 0, tlw, T.lanes.length * LANE);\n"
	"  for (l = 0; l < T.lanes.length; l++) {\n"
	"    tctx.fillStyle = l % 2 ? '#f4f4f4' : '#ececec';\n"
	"    tctx.fillRect(0, l * LANE, tlw, LANE - 1);\n"
	"    for (k = T.lanes[l].first; k < T.lanes[l].first + T.lanes[l].n; k++) {\n"
	"      s = T.traces[T.tr[k]];\n"
	"      f = s.length ? Math.floor(s[s.length - 1] / 2) : 0;\n"
	"      x = tlX(T.t[k]);\n"
	"      tctx.fillStyle = 'hsl(' + (hash(T.names[f] || '') % 360) + ',60%,55%)';\n"
	"      tctx.fillRect(x, l * LANE + 1, Math.max(1, tlX(T.t[k] + 1) - x), LANE - 3);\n"
	"    }\n"
	"    tctx.fillStyle = '#000'; tctx.font = FONT; tctx.textBaseline = 'middle';\n"
	"    tctx.fillText(T.lanes[l].name, 4, l * LANE + LANE / 2);\n"
	"  }\n"
	"  if (sel) {\n"
	"    tctx.fillStyle = 'rgba(60,110,220,0.25)';\n"
	"    tctx.fillRect(tlX(sel[0]), 0, Math.max(1, tlX(sel[1]) - tlX(sel[0])), T.lanes.length * LANE);\n"
	"  }\n"
	"}\n"
	"// The tree of the timeline's samples in [A, B) ms, as load() takes it:\n"
	"// children in order of name, as the page's own tree.\n"
	"function rangeNodes(a, b) {\n"
	"  var root = { k: -1, v: 0, c: {} }, out = [], k, s, n, m;\n"
	"  for (k = 0; k < T.t.length; k++) {\n"
	"    if (T.t[k] < a || T.t[k] >= b) continue;\n"
	"    s = T.traces[T.tr[k]]; n = root; n.v += T.w[k];\n"
	"    for (m = 0; m < s.length; m++) {\n"
	"      n = n.c[s[m]] || (n.c[s[m]] = { k: s[m], v: 0, c: {} });\n"
	"      n.v += T.w[k];\n"
	"    }\n"
	"  }\n"
	"  (function walk(p, depth) {\n"
	"    var ks = Object.keys(p.c).sort(function (x, y) {\n"
	"      var u = T.names[Math.floor(x / 2)], v = T.names[Math.floor(y / 2)];\n"
	"      return u < v ? -1 : u > v ? 1 : x - y;\n"
	"    });\n"
	"    ks.forEach(function (x) { var c = p.c[x]; out.push(c.k, c.v, depth); walk(c, depth + 1); });\n"
	"  })(root, 1);\n"
	"  return { nodes: out, total: root.v };\n"
	"}\n"
	"function select(a, b) {\n"
	"  var r;\n"
	"  sel = a === null ? null : [Math.min(a, b), Math.max(a, b)];\n"
	"  zoom = 0;\n"
	"  if (sel) {\n"
	"    r = rangeNodes(sel[0], sel[1]);\n"
	"    NAMES = T.names; MODOF = T.module_of; MODS = T.modules; colors = {};\n"
	"    load(r.nodes, r.total);\n"
	"    $('range').textContent = 'selected ' + (sel[0] / 1e3).toFixed(3) + ' s to ' +\n"
	"      (sel[1] / 1e3).toFixed(3) + ' s: ' + Math.round(r.total) + ' samples (double click: all)';\n"
	"    document.body.setAttribute('data-range-samples', String(Math.round(r.total)));\n"
	"  } else {\n"
	"    NAMES = D.names; MODOF = D.module_of; MODS = D.modules; colors = {};\n"
	"    load(D.nodes, D.total);\n"
	"    $('range').textContent = 'drag over the timeline to see a range of time';\n"
	"    document.body.removeAttribute('data-range-samples');\n"
	"  }\n"
	"  tlDraw(); resize(); search($('search').value);\n"
	"}\n"
	"function tlMs(ev) {\n"
	"  var r = tl.getBoundingClientRect();\n"
	"  return Math.max(0, Math.min(T.end, (ev.clientX - r.left) / tlw * T.end));\n"
	"}\n"
	"if (T && T.lanes.length) {\n"
	"  $('tlwrap').hidden = false;\n"
	"  $('lanes').textContent = T.lanes.map(function (l) { return l.name; }).join('\\n');\n"
	"  tl.addEventListener('mousedown', function (ev) { drag = tlMs(ev); });\n"
	"  tl.addEventListener('mousemove', function (ev) {\n"
	"    if (drag === null) return;\n"
	"    sel = [Math.min(drag, tlMs(ev)), Math.max(drag, tlMs(ev))]; tlDraw();\n"
	"  });\n"
	"  tl.addEventListener('mouseup', function (ev) {\n"
	"    var b = tlMs(ev), a = drag;\n"
	"    drag = null;\n"
	"    if (a !== null && Math.abs(tlX(b) - tlX(a)) >= 2) select(a, b);\n"
	"  });\n"
	"  tl.addEventListener('dblclick', function () { select(null); });\n"
	"  window.addEventListener('resize', tlDraw);\n"
	"  select(null);\n"
	"}\n"
	"var h = decodeURIComponent(location.hash);\n"
	"if (h.indexOf('#search=') === 0) { $('search').value = h.slice(8); search(h.slice(8)); }\n"
	"if (h.indexOf('#time=') === 0 && T && T.lanes.length) {\n"
	"  j = h.slice(6).split('-');\n"
	"  select(parseFloat(j[0]) * 1e3, j[1] ? parseFloat(j[1]) * 1e3 : T.end + 1);\n"
	"}\n"
	"if (h.indexOf('#zoom=') === 0) {\n"
	"  for (i = 1; i <= N && name(i) !== h.slice(6); i++);\n"
	"  if (i <= N) { zoom = i; draw(); }\n"
	"}\n"
	"})();\n"
	"</script>\n"
	"</body>\n"
	"</html>\n";
/* clang-format on */

/* S escaped for HTML text or an attribute. */
static void
html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

void
html_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' ||
			 *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (p[0] == 0xe2 && p[1] == 0x80 &&
			 (p[2] == 0xa8 || p[2] == 0xa9)) {
			fprintf(out, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
			p += 2;
		} else
			fputc(*p, out);
	}
	fputc('"', out);
}

void
html_page_head(FILE *out, const struct html_page *pg)
{
	const char *slash = strrchr(pg->exe, '/');

	fputs(page_head, out);
	fputs("profrun: ", out);
	html_text(out, slash ? slash + 1 : pg->exe);
	fputs(page_style, out);
	if (pg->style)
		fputs(pg->style, out);
	fputs(page_body, out);
	if (pg->aside)
		fputs(pg->aside, out);
	fputs(page_data, out);
}

void
html_page_tail(FILE *out, const struct html_page *pg)
{
	fputs(page_core, out);
	if (pg->script)
		fputs(pg->script, out);
	fputs(page_start, out);
}
