/* SPDX-License-Identifier: MIT */
/*
 * `profrun diff --format html`: the flame graph page of formats/ (its
 * layout, drawing, search and zoom) showing NEW's stacks, each frame
 * coloured by the change of its function's inclusive share against BASE:
 * red when it grew, blue when it shrank (deeper for larger changes, full
 * at DIFF_FULL_POINTS), grey when the gate's test finds no change (not
 * significant, or within the threshold).  Beside it, the significant
 * changes, and the functions only BASE has.  When a side has no stacks,
 * bars of the functions' shares of NEW take the flame graph's place,
 * coloured by the change of their own share.
 *
 * The data adds to the flame graph's a "diff" object: "fn", for each
 * function of "names", [base %, new %, change, p-value, status,
 * significant] or null; "changes" and "incl_changes", rows [name, module,
 * base %, new %, change, p-value, status]; "removed", [name, module,
 * base %]; "same", [base module, new module, automatic].
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "html.h"
#include "report.h"

/* clang-format off */
static const char page_style[] =
	"#side { flex: 0 1 36em; min-width: 0; padding: 0 12px 12px; }\n"
	"#side h2 { font-size: 14px; margin: 10px 0 4px; }\n"
	"#side table { border-collapse: collapse; width: 100%; font-size: 12px; }\n"
	"#side th, #side td { padding: 2px 5px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }\n"
	"#side th { background: #f0eee8; }\n"
	"#side td.fn, #side th.fn { text-align: left; white-space: normal; word-break: break-all; }\n"
	"#side p, #side li { margin: 3px 0; }\n"
	"#verdict { font-weight: bold; font-size: 14px; margin-top: 6px; }\n"
	".sw { display: inline-block; width: 11px; height: 11px; margin-right: 5px; vertical-align: middle; border: 1px solid #888; }\n"
	"#bars { display: none; font-size: 12px; flex: 1 1 640px; min-width: 0; padding: 0 12px 12px; }\n"
	".bar { display: flex; align-items: center; height: 19px; }\n"
	".bar .name { flex: 0 0 16em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding-right: 6px; text-align: right; }\n"
	".bar .track { position: relative; flex: 1 1 auto; height: 15px; }\n"
	".bar .new { position: absolute; left: 0; top: 0; height: 15px; }\n"
	".bar .base { position: absolute; left: 0; top: 0; height: 13px; border: 1px dashed #333; }\n"
	".bar .val { flex: 0 0 17em; padding-left: 6px; font-family: monospace; white-space: nowrap; }\n";

static const char page_aside[] =
	"<div id=\"bars\"></div>\n"
	"<aside id=\"side\"><div id=\"verdict\"></div><div id=\"legend\"></div>\n"
	"<div id=\"same\"></div>\n"
	"<h2 id=\"changes-h\">Significant changes</h2><table id=\"changes\"></table>\n"
	"<h2 id=\"incl-h\" hidden>Inclusive shares</h2><table id=\"incl-changes\" hidden></table>\n"
	"<h2 id=\"removed-h\">Only in BASE (removed)</h2><ul id=\"removed\"></ul>\n"
	"<p id=\"method\"></p></aside>\n";

static const char page_script[] =
	"var X = D.diff, FULL = 25, GREY = 'rgb(200,200,200)', nodeOf = [];\n"
	"for (i = 1; i <= N; i++) if (nodeOf[fnOf(i)] === undefined) nodeOf[fnOf(i)] = i;\n"
	"function way(s) { return s === 'regression' || s === 'new' ? 1 : s === 'improvement' || s === 'gone' ? -1 : 0; }\n"
	"function depth(r) { return 0.3 + 0.7 * Math.min(1, Math.abs(r[2]) / FULL); }\n"
	"function shade(k, s) {\n"
	"  if (k > 0) return 'rgb(' + Math.round(250 - 30 * s) + ',' + Math.round(215 - 175 * s) + ',' + Math.round(205 - 170 * s) + ')';\n"
	"  if (k < 0) return 'rgb(' + Math.round(205 - 170 * s) + ',' + Math.round(220 - 130 * s) + ',' + Math.round(250 - 20 * s) + ')';\n"
	"  return GREY;\n"
	"}\n"
	"function fnColor(f) { var r = X.fn[f]; return r ? shade(way(r[4]), depth(r)) : GREY; }\n"
	"function ptext(p) { return p < 1e-16 ? '< 1e-16' : '= ' + p.toPrecision(2); }\n"
	"function points(x) { return (x >= 0 ? '+' : '') + x.toFixed(2) + ' points'; }\n"
	"function words(r) {\n"
	"  var k = way(r[4]);\n"
	"  if (k) return (k > 0 ? 'grew' : 'shrank') + ', ' + r[4] + ', p ' + ptext(r[3]);\n"
	"  return (r[5] ? 'significant but within the ' + X.threshold + '-point threshold' : 'not significant') + ', p ' + ptext(r[3]);\n"
	"}\n"
	"V.title = 'profrun differential flame graph: ' + D.title;\n"
	"V.color = function (i) { return i === 0 ? GREY : fnColor(fnOf(i)); };\n"
	"V.ink = function (i) {\n"
	"  var r = i ? X.fn[fnOf(i)] : null;\n"
	"  return r && way(r[4]) && depth(r) > 0.6 ? '#fff' : '#000';\n"
	"};\n"
	"V.tip = function (i) {\n"
	"  var r = i ? X.fn[fnOf(i)] : null;\n"
	"  if (!i) return [];\n"
	"  if (!r) return ['not compared'];\n"
	"  return [X.measure + ' share: BASE ' + r[0].toFixed(2) + '%, NEW ' + r[1].toFixed(2) + '%',\n"
	"    'change: ' + points(r[2]) + ' (' + words(r) + ')'];\n"
	"};\n"
	"V.note = function (i) { var r = i ? X.fn[fnOf(i)] : null; return r ? points(r[2]) + ' ' + r[4] : ''; };\n"
	"V.info = function (text) {\n"
	"  if (!D.has_stacks) return 'No call stacks on both sides: bars of each function\\'s own share of NEW (dashed: BASE), coloured by its change; the search takes a regular expression.';\n"
	"  return 'NEW: ' + text + '.  Each frame is coloured by the change of its function\\'s inclusive share against BASE.' +\n"
	"    '  Click a frame to zoom in (again to zoom out), Esc to reset; the search takes a regular expression.';\n"
	"};\n"
	"\n"
	"function el(tag, text, cls) {\n"
	"  var e = document.createElement(tag);\n"
	"  if (text !== undefined && text !== null) e.textContent = text;\n"
	"  if (cls) e.className = cls;\n"
	"  return e;\n"
	"}\n"
	"function swatch(c) { var s = el('span', null, 'sw'); s.style.background = c; return s; }\n"
	"function table(id, rows) {\n"
	"  var t = $(id), h = el('tr'), k, r, tr, td;\n"
	"  ['function', 'base %', 'new %', 'change', 'status'].forEach(function (s, j) { h.appendChild(el('th', s, j ? '' : 'fn')); });\n"
	"  t.appendChild(h);\n"
	"  if (!rows.length) { tr = el('tr'); td = el('td', 'none', 'fn'); td.colSpan = 5; tr.appendChild(td); t.appendChild(tr); }\n"
	"  for (k = 0; k < rows.length; k++) {\n"
	"    r = rows[k]; tr = el('tr');\n"
	"    tr.setAttribute('data-name', r[0]);\n"
	"    td = el('td', null, 'fn'); td.appendChild(swatch(shade(way(r[6]), depth([0, 0, r[4]]))));\n"
	"    td.appendChild(document.createTextNode(r[0])); td.title = r[1] || '';\n"
	"    tr.appendChild(td);\n"
	"    tr.appendChild(el('td', r[2].toFixed(2)));\n"
	"    tr.appendChild(el('td', r[3].toFixed(2)));\n"
	"    tr.appendChild(el('td', (r[4] >= 0 ? '+' : '') + r[4].toFixed(2)));\n"
	"    tr.appendChild(el('td', r[6]));\n"
	"    t.appendChild(tr);\n"
	"  }\n"
	"}\n"
	"function side() {\n"
	"  var leg = $('legend'), k, li;\n"
	"  $('verdict').textContent = X.verdict;\n"
	"  [[1, 'grew'], [-1, 'shrank'], [0, 'no change (not significant, or within the threshold)']].forEach(function (c) {\n"
	"    var p = el('p'); p.appendChild(swatch(shade(c[0], 1))); if (c[0]) p.appendChild(swatch(shade(c[0], 0.3)));\n"
	"    p.appendChild(document.createTextNode(c[1])); leg.appendChild(p);\n"
	"  });\n"
	"  leg.appendChild(el('p', 'Colours by the ' + X.measure + ' share; deeper for larger changes (full at ' + FULL + ' points).'));\n"
	"  for (k = 0; k < X.same.length; k++)\n"
	"    $('same').appendChild(el('p', 'module ' + X.same[k][0] + ' of BASE compared as ' + X.same[k][1] + ' of NEW (' +\n"
	"      (X.same[k][2] ? 'the one main executable of each' : '--same') + ')'));\n"
	"  $('changes-h').textContent = 'Significant changes (' + X.gate + ' shares, the gate\\'s)';\n"
	"  table('changes', X.changes);\n"
	"  if (X.incl_changes) {\n"
	"    $('incl-h').hidden = false; $('incl-changes').hidden = false;\n"
	"    $('incl-h').textContent = 'Significant changes of inclusive shares';\n"
	"    table('incl-changes', X.incl_changes);\n"
	"  }\n"
	"  $('removed-h').textContent = 'Only in BASE (removed): ' + X.removed.length;\n"
	"  for (k = 0; k < X.removed.length; k++) {\n"
	"    li = el('li', X.removed[k][0] + (X.removed[k][1] ? ' (' + X.removed[k][1] + ')' : '') + ': ' + X.removed[k][2].toFixed(2) + '% of BASE');\n"
	"    li.setAttribute('data-name', X.removed[k][0]);\n"
	"    $('removed').appendChild(li);\n"
	"  }\n"
	"  $('method').textContent = 'BASE ' + X.base + ': ' + X.base_samples + ' samples; NEW ' + X.new + ': ' + X.new_samples +\n"
	"    ' samples.  ' + X.method + ' at ' + X.confidence + '% family-wise confidence; flagged beyond ' + X.threshold + ' points.';\n"
	"}\n"
	"\n"
	"/* Without stacks: a bar per function of NEW, its share of NEW filled\n"
	" * and coloured by the change, BASE's share dashed over it. */\n"
	"var barRows = null;\n"
	"function bars(drawn) {\n"
	"  var box = $('bars'), max = 0.01, order = [], f, k, r, row, b, q, fill;\n"
	"  if (!barRows) {\n"
	"    $('wrap').style.display = 'none'; box.style.display = 'block';\n"
	"    for (f = 0; f < D.names.length; f++) if (X.fn[f]) { order.push(f); max = Math.max(max, X.fn[f][0], X.fn[f][1]); }\n"
	"    order.sort(function (a, c) { return X.fn[c][1] - X.fn[a][1] || (D.names[a] < D.names[c] ? -1 : 1); });\n"
	"    barRows = [];\n"
	"    for (k = 0; k < order.length; k++) {\n"
	"      f = order[k]; r = X.fn[f];\n"
	"      row = el('div', null, 'bar'); row.setAttribute('data-name', D.names[f]);\n"
	"      row.appendChild(el('span', D.names[f], 'name')).title = D.names[f];\n"
	"      q = el('div', null, 'track');\n"
	"      b = el('div', null, 'new'); b.style.width = (100 * r[1] / max) + '%'; q.appendChild(b);\n"
	"      q.appendChild(el('div', null, 'base')).style.width = (100 * r[0] / max) + '%';\n"
	"      row.appendChild(q);\n"
	"      row.appendChild(el('span', r[0].toFixed(2) + '% \\u2192 ' + r[1].toFixed(2) + '% ' + points(r[2]), 'val'));\n"
	"      box.appendChild(row);\n"
	"      barRows.push([f, b, row]);\n"
	"    }\n"
	"  }\n"
	"  for (k = 0; k < barRows.length; k++) {\n"
	"    f = barRows[k][0]; b = barRows[k][1];\n"
	"    fill = fnMatch !== null && fnMatch[f] === 1 ? 'rgb(230,0,230)' : fnColor(f);\n"
	"    b.style.background = fill;\n"
	"    r = b.getBoundingClientRect();\n"
	"    drawn[D.names[f]] = [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height, fill, nodeOf[f]];\n"
	"  }\n"
	"  return barRows.length;\n"
	"}\n"
	"if (!D.has_stacks) V.draw = bars;\n"
	"side();\n";
/* clang-format on */

/* The inclusive rows compared, or the gate's. */
static const struct diff_row *
rows_of(const struct diff *d, bool inclusive, size_t *n)
{
	if (inclusive && !d->opts->inclusive) {
		*n = d->incl.n;
		return d->incl.v;
	}
	*n = d->nrows;
	return d->rows;
}

static void
row_fn(FILE *out, const struct diff_row *r)
{
	if (!r) {
		fputs("null", out);
		return;
	}
	fprintf(out, "[%.10g,%.10g,%.10g,%.3g,\"%s\",%s]", r->base_pct,
		r->new_pct, r->delta, r->p_value, diff_status_name(r->status),
		r->significant ? "1" : "0");
}

static void
row_table(FILE *out, const struct diff_row *r)
{
	fputc('[', out);
	html_json_string(out, r->name);
	fputc(',', out);
	html_json_string(out, r->module ? r->module : "");
	fprintf(out, ",%.10g,%.10g,%.10g,%.3g,\"%s\"]", r->base_pct, r->new_pct,
		r->delta, r->p_value, diff_status_name(r->status));
}

/* KEY: the flagged rows among V, or only those without NEW's share
 * (REMOVED: the functions only BASE has, flagged or not). */
static void
write_rows(FILE *out, const char *key, const struct diff_row *v, size_t n,
	   bool removed)
{
	size_t k = 0;

	fprintf(out, ",\n\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &v[i];

		if (removed ? !(r->new == 0 && r->base > 0)
			    : r->status == DIFF_UNCHANGED)
			continue;
		fputs(k++ ? ",\n" : "", out);
		if (!removed) {
			row_table(out, r);
			continue;
		}
		fputc('[', out);
		html_json_string(out, r->name);
		fputc(',', out);
		html_json_string(out, r->module ? r->module : "");
		fprintf(out, ",%.10g]", r->base_pct);
	}
	fputc(']', out);
}

static void
write_same(FILE *out, const struct diff *d)
{
	fputs(",\n\"same\":[", out);
	for (size_t i = 0; i < d->nsame; i++) {
		fputs(i ? ",[" : "[", out);
		html_json_string(out, d->same[i].base);
		fputc(',', out);
		html_json_string(out, d->same[i].new);
		fprintf(out, ",%s]", d->same[i].automatic ? "true" : "false");
	}
	fputc(']', out);
}

/* The "diff" object; ROW[i] is the row of the page's function i. */
static int
write_diff(FILE *out, const struct diff *d, const struct diff_row **row,
	   size_t nfns, bool graph)
{
	const struct diff_row *v;
	char *verdict = NULL;
	size_t len = 0, n;
	FILE *m = open_memstream(&verdict, &len);

	if (!m)
		return -1;
	diff_verdict(d, m, false);
	if (fclose(m) != 0)
		return -1;
	if (len > 0 && verdict[len - 1] == '\n')
		verdict[len - 1] = '\0';
	fputs(",\n\"diff\":{\"verdict\":", out);
	html_json_string(out, verdict);
	free(verdict);
	fprintf(out, ",\"measure\":\"%s\",\"gate\":\"%s\",\"method\":",
		graph || d->opts->inclusive ? "inclusive" : "self",
		d->opts->inclusive ? "inclusive" : "self");
	html_json_string(out, diff_method_text());
	fprintf(out, ",\"confidence\":%g,\"threshold\":%g,\"base\":",
		d->opts->confidence, d->opts->threshold);
	html_json_string(out, d->base.path);
	fputs(",\"new\":", out);
	html_json_string(out, d->new.path);
	fprintf(out, ",\"base_samples\":%" PRIu64 ",\"new_samples\":%" PRIu64,
		d->base.total, d->new.total);
	fputs(",\n\"fn\":[", out);
	for (size_t i = 0; i < nfns; i++) {
		fputs(i ? (i % 8 ? "," : ",\n") : "", out);
		row_fn(out, row[i]);
	}
	fputc(']', out);
	write_rows(out, "changes", d->rows, d->nrows, false);
	if (diff_has_incl(d))
		write_rows(out, "incl_changes", d->incl.v, d->incl.n, false);
	v = rows_of(d, graph, &n);
	write_rows(out, "removed", v, n, true);
	write_same(out, d);
	fputs("}", out);
	return 0;
}

/* The flat view's functions: the gate's rows NEW has, as stacks of one
 * frame each, into S and ROW.  0 or -1. */
static int
flat_stacks(const struct diff *d, struct report_stacks *s,
	    const struct diff_row ***row)
{
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	s->fns = calloc(d->nrows + 1, sizeof(*s->fns));
	s->frames = calloc(d->nrows + 1, sizeof(*s->frames));
	s->traces = calloc(d->nrows + 1, sizeof(*s->traces));
	*row = calloc(d->nrows + 1, sizeof(**row));
	if (!s->fns || !s->frames || !s->traces || !*row)
		return -1;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (r->new == 0)
			continue;
		s->fns[n] = (struct stack_fn){
			.module = (char *)(r->module ? r->module : ""),
			.name = (char *)r->name,
			.func = SIZE_MAX};
		s->frames[n] = (struct stack_frame){.fn = (uint32_t)n};
		s->traces[n] = (struct stack_trace){(uint32_t)n, 1, 0, r->new};
		s->stacks += r->new;
		(*row)[n++] = r;
	}
	s->nfns = s->nframes = s->ntraces = n;
	s->samples = s->stacks;
	return 0;
}

/* NEW's stacks, and the inclusive row of each of their functions. */
static int
graph_rows(const struct diff *d, const struct report_stacks *s,
	   const struct diff_row ***row)
{
	*row = calloc(s->nfns + 1, sizeof(**row));
	if (!*row)
		return -1;
	for (size_t i = 0; i < d->new.n; i++) {
		const struct diff_fn *f = &d->new.fns[i];

		if (f->stack_fn < s->nfns)
			(*row)[f->stack_fn] = diff_fn_incl_row(d, f);
	}
	return 0;
}

int
diff_html(const struct diff *d, FILE *out)
{
	const struct report *nr = d->new.report;
	bool graph = nr && nr->stacks.present && diff_incl_count(d) > 0;
	const char *exe = nr && nr->nprocs ? nr->procs[0].p->exe : d->new.path;
	struct html_page pg = {.exe = exe,
			       .style = page_style,
			       .aside = page_aside,
			       .script = page_script};
	const struct report_stacks *s = graph ? &nr->stacks : NULL;
	struct report_stacks flat = {0};
	const struct diff_row **row = NULL;
	int ret = -1;

	if (graph ? graph_rows(d, s, &row) == 0
		  : flat_stacks(d, &flat, &row) == 0) {
		if (!graph)
			s = &flat;
		html_page_head(out, &pg);
		fputs("{\"title\":", out);
		html_json_string(out, d->new.nmains == 1 ? d->new.mains[0]
							 : d->new.path);
		fputs(",\n", out);
		if (html_flame_data(out, s, graph) == 0 &&
		    write_diff(out, d, row, s->nfns, graph) == 0) {
			html_page_tail(out, &pg);
			ret = 0;
		}
	}
	if (ret)
		cli_error("diff: out of memory");
	free(flat.fns);
	free(flat.frames);
	free(flat.traces);
	free(row);
	return ret;
}
