// The game's analysis on the page: "Analyse" streams POST /v1/analysis (NDJSON, one line
// per ply as the service finishes it: docs/service.md) and shows it as it arrives: the
// evaluation graph (graph.js; a click goes to that position), the inaccuracies, mistakes
// and blunders marked in the move list, and at the shown ply its judgement, the best
// move and the engine's line (with the best move from the position drawn on the board).
// A stream that broke off resumes from the first ply not received (`from_ply`).

import { ApiError } from './api.js';
import { drawGraph, judgementName } from './graph.js';
import { number, t } from './i18n.js';
import { NOTATIONS, lineText } from './notation.js';

const $ = id => document.getElementById(id);
const SIGNS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

function scoreText(score) {
  if (!score) return '';
  if (score.result) return score.result;
  if (score.mate != null) {
    return score.mate > 0
      ? t('analysis.red_mates', { n: score.mate })
      : t('analysis.black_mates', { n: -score.mate });
  }
  if (score.cp != null) return `${score.cp >= 0 ? '+' : '−'}${(Math.abs(score.cp) / 100).toFixed(2)}`;
  return '';
}

// One summary of the whole game from the summaries of its parts (a game analysed in
// parts, or resumed): the counts added, the average loss weighted by each part's moves;
// the accuracy only from a single part (lichess's game accuracy is not an average of
// its parts' accuracies). Null until the parts cover the game from its first ply.
function combined(summaries, plies) {
  const parts = [...summaries.values()].sort((a, b) => a.from_ply - b.from_ply);
  let next = 1;
  for (const part of parts) {
    if (part.from_ply !== next) return null;
    next += part.red.moves + part.black.moves;
  }
  if (next !== plies + 1) return null;
  if (parts.length === 1) return parts[0];
  const side = name => {
    const all = parts.map(p => p[name]);
    const moves = all.reduce((n, s) => n + s.moves, 0);
    const scored = all.filter(s => s.mean_loss_cp != null);
    const weight = scored.reduce((n, s) => n + s.moves, 0);
    return {
      moves,
      inaccuracies: all.reduce((n, s) => n + s.inaccuracies, 0),
      mistakes: all.reduce((n, s) => n + s.mistakes, 0),
      blunders: all.reduce((n, s) => n + s.blunders, 0),
      mean_loss_cp: weight
        ? scored.reduce((n, s) => n + s.mean_loss_cp * s.moves, 0) / weight
        : null,
      accuracy: null,
    };
  };
  return { from_ply: 1, plies, red: side('red'), black: side('black') };
}

export class Analysis {
  // api: LadderApi; view(ply): show that position; refresh(): draw the move list again.
  constructor({ api, view, refresh }) {
    this.api = api;
    this.view = view;
    this.refresh = refresh;
    // GET /v1/variants' bounds (the page sets them): one request analyses at most
    // `analysis_max_plies` plies, so a longer game goes in parts through `from_ply`.
    this.limits = { analysis_max_plies: Infinity };
    this.reset(null);
  }

  reset(game) {
    this.controller?.abort();
    this.controller = null;
    this.game = game;
    this.moves = []; // the moves analysed (a prefix of the game's)
    this.plies = new Map(); // ply -> the stream's ply line
    this.summaries = new Map(); // from_ply -> the summary of the part from there
    this.summary = null;
    this.requested = false;
    this.shown = 0;
    $('graph').hidden = $('best-line').hidden = $('summary').hidden = true;
    $('analysis-status').textContent = '';
    delete $('graph').dataset.state;
  }

  active() {
    return this.requested;
  }

  enable(on) {
    $('analyse').disabled = !on || !!this.controller || !this.game?.moves.length;
  }

  // After an undo: the plies past `ply` are no longer the game's.
  truncate(ply) {
    if (this.moves.length <= ply) return;
    this.controller?.abort();
    this.controller = null;
    this.moves = this.moves.slice(0, ply);
    for (const p of [...this.plies.keys()]) if (p > ply) this.plies.delete(p);
    this.summaries.clear();
    this.summary = null;
    this.draw();
  }

  // The nodes per position the player chose ('' leaves it to the service's default).
  nodes() {
    const value = $('analysis-nodes').value;
    return value ? Number(value) : undefined;
  }

  // Analyse the game's moves so far, from the first ply not analysed yet.
  async start() {
    const game = this.game;
    if (!game || this.controller || !game.moves.length) return;
    const moves = [...game.moves];
    const nodes = this.nodes();
    if (this.nodesUsed !== nodes || this.rebuilt) {
      // another budget, or the service's engine build changed: start again (never mixed)
      this.plies.clear();
      this.summaries.clear();
      this.summary = null;
      this.rebuilt = false;
    }
    this.nodesUsed = nodes;
    let fromPly = 1;
    while (this.plies.has(fromPly)) fromPly++;
    this.moves = moves;
    this.requested = true;
    if (fromPly > moves.length) {
      this.draw();
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    $('analyse').disabled = true;
    $('graph').dataset.state = 'running';
    this.status(t('analysis.running', { n: moves.length }));
    this.refresh();
    let failed = null;
    try {
      // In parts of at most the service's bound, each from where the last one stopped.
      while (fromPly <= moves.length && !this.errorLine) {
        const end = Math.min(moves.length, fromPly - 1 + this.limits.analysis_max_plies);
        const body = {
          variant: game.variant,
          moves: moves.slice(0, end),
          from_ply: fromPly,
          notations: NOTATIONS,
        };
        if (nodes) body.nodes = nodes;
        // a resumed part names the engine build of its start: never continued on another
        const pin = fromPly > 1 && this.engine ? { 'X-Ladder-Engine-Build': this.engine } : {};
        await this.api.analysis(body, line => this.take(line), controller.signal, pin);
        while (this.plies.has(fromPly)) fromPly++;
      }
    } catch (err) {
      if (err.name === 'AbortError') return;
      if (!(err instanceof ApiError)) throw err;
      failed = err;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
    if (this.game !== game) return;
    if (failed && failed.code === 'version_mismatch') {
      this.rebuilt = true; // the next "Analyse" starts again on the build that answers
    }
    if (failed) {
      const what =
        failed.status === 404
          ? t('analysis.no_service')
          : `${failed.message} (${failed.status ? `${failed.status} ${failed.code}` : failed.code})`;
      this.status(t('analysis.failed', { what }));
      $('graph').dataset.state = 'error';
    } else if (this.errorLine) {
      const e = this.errorLine;
      this.errorLine = null;
      this.status(t('analysis.stopped', { ply: e.resume_from_ply, message: e.error.message }));
      $('graph').dataset.state = 'error';
    } else {
      $('graph').dataset.state = 'done';
      this.status(this.doneText());
    }
    $('analyse').disabled = false;
    this.draw();
  }

  take(line) {
    if (line.type === 'start') {
      this.engine = line.engine;
      this.total = line.plies;
      this.budget = line.nodes;
    } else if (line.type === 'ply') {
      this.plies.set(line.ply, line);
      this.status(t('analysis.progress', { done: this.plies.size, n: this.moves.length }));
      this.draw();
      this.refresh();
    } else if (line.type === 'summary') {
      this.summaries.set(line.from_ply, line);
      this.summary = combined(this.summaries, this.moves.length);
    } else if (line.type === 'error') {
      this.errorLine = line;
    }
  }

  doneText() {
    const behind = this.game.moves.length - this.moves.length;
    const more = behind > 0 ? t('analysis.more', { n: behind }) : '';
    const nodes = this.budget != null ? number(this.budget) : '?';
    return t('analysis.done', { n: this.moves.length, nodes }) + more;
  }

  status(text) {
    $('analysis-status').textContent = text;
  }

  // Red's win chance after each analysed ply (ply 0: before the first move).
  values() {
    const values = new Map();
    const first = this.plies.get(1);
    if (first) values.set(0, first.win_chance_before);
    for (const [ply, line] of this.plies) values.set(ply, line.win_chance);
    return values;
  }

  draw() {
    if (!this.requested) return;
    const graph = $('graph');
    graph.hidden = false;
    const judged = new Map();
    for (const [ply, line] of this.plies) if (line.judgement) judged.set(ply, line.judgement);
    drawGraph(graph, {
      plies: this.moves.length,
      values: this.values(),
      judged,
      shown: this.shown,
      onPick: ply => this.view(ply),
    });
    graph.dataset.plies = String(this.plies.size);
    this.drawBestLine();
    this.drawSummary();
  }

  // The shown ply changed: move the graph's line, and say what the analysis found there.
  select(ply) {
    this.shown = ply;
    if (this.requested) this.draw();
  }

  // At the shown ply: the move's judgement and what was best instead (its line), and the
  // engine's line from this position.
  drawBestLine() {
    const box = $('best-line');
    const played = this.plies.get(this.shown);
    const next = this.plies.get(this.shown + 1);
    if (!played && !next) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const parts = [];
    if (played) {
      const p = document.createElement('p');
      p.className = 'verdict';
      p.dataset.ply = String(played.ply);
      const name = played.judgement ? judgementName(played.judgement) : t('analysis.move');
      let text = t('analysis.verdict', {
        name,
        wxf: lineText(played, 'move'),
        ply: played.ply,
        score: scoreText(played.eval_after),
      });
      if (played.judgement && played.best) {
        text += t('analysis.best_was', {
          best: lineText(played, 'best'),
          line: lineText(played, 'pv').join(' '),
        });
      }
      p.textContent = `${text}.`;
      if (played.judgement) p.classList.add(played.judgement);
      parts.push(p);
      if (played.note) {
        const note = document.createElement('p');
        note.className = 'quiet';
        note.textContent = played.note;
        parts.push(note);
      }
    }
    if (next && next.pv.length) {
      const p = document.createElement('p');
      p.className = 'line';
      p.dataset.best = next.best ?? '';
      p.textContent = t('analysis.best_line', {
        score: scoreText(next.eval_before),
        line: lineText(next, 'pv').join(' '),
      });
      parts.push(p);
    }
    box.replaceChildren(...parts);
  }

  drawSummary() {
    const box = $('summary');
    if (!this.summary) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    for (const [text, title] of [
      ['', ''],
      ['?!', t('analysis.inaccuracies')],
      ['?', t('analysis.mistakes')],
      ['??', t('analysis.blunders')],
      [t('analysis.acpl'), t('analysis.acpl_title')],
      [t('analysis.accuracy'), t('analysis.accuracy_title')],
    ]) {
      const th = document.createElement('th');
      th.textContent = text;
      th.title = title;
      head.append(th);
    }
    const body = table.createTBody();
    for (const side of ['red', 'black']) {
      const s = this.summary[side];
      const row = body.insertRow();
      row.dataset.side = side;
      const cells = [
        t(`side.${side}`),
        s.inaccuracies,
        s.mistakes,
        s.blunders,
        s.mean_loss_cp == null ? '–' : String(Math.round(s.mean_loss_cp)),
        s.accuracy == null ? '–' : `${Math.round(s.accuracy)} %`,
      ];
      for (const c of cells) row.insertCell().textContent = String(c);
    }
    box.replaceChildren(table);
  }

  // The move list's mark for `ply` (?!, ?, ??), with what was best in its tooltip.
  markMove(cell, ply) {
    const line = this.plies.get(ply);
    if (!line?.judgement) return;
    const mark = document.createElement('span');
    mark.className = `judgement ${line.judgement}`;
    mark.textContent = SIGNS[line.judgement];
    mark.title = t('analysis.mark_title', {
      name: judgementName(line.judgement),
      best: lineText(line, 'best'),
    });
    cell.dataset.judgement = line.judgement;
    cell.querySelector('b').after(mark);
  }

  // The engine's best move from the position at `ply`, as an arrow.
  arrowsAt(ply) {
    const next = this.plies.get(ply + 1);
    return next?.best ? [{ move: next.best, brush: 'blue' }] : [];
  }
}
