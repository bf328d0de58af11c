// The /play page: a game against the ladder. The service judges every position
// (POST /v1/position: legal moves, check, outcome, WXF) and plays the ladder's moves
// (POST /v1/move); the page shows them and sends the player's moves.
//
// The address keeps the game (?variant=&level=&colour=&seed=&moves=h3e3,h10g8): a reload
// or a shared link continues it. For tests and tools, #app carries the game's state:
// data-state (loading, your-turn, thinking, checking, over, error), data-ply, data-moves,
// data-fen, data-check, data-outcome.

import { ApiError, LadderApi } from './api.js';
import { Board, destsOf, removedBy } from './board.js';

const $ = id => document.getElementById(id);
const app = $('app');
const api = new LadderApi();

const VARIANT_NAMES = {
  xiangqi: 'Xiangqi',
  'atomic-xiangqi': 'Atomic xiangqi',
  'crazyhouse-xiangqi': 'Crazyhouse xiangqi',
};
const REASONS = {
  checkmate: 'Checkmate',
  stalemate: 'No legal move (that loses here)',
  'general-exploded': 'The general exploded',
  'perpetual-check': 'Perpetual check (the side that kept checking loses)',
  repetition: 'Threefold repetition',
  'sixty-plies': 'Sixty plies without a capture',
};
const SETTINGS_STORAGE = 'mistboard-play-settings';
const MAX_SEED = Number.MAX_SAFE_INTEGER;
const capital = word => word[0].toUpperCase() + word.slice(1);

let levels = {}; // variant -> [LevelInfo] from GET /v1/levels
let eloRanges = {}; // variant -> {low, high} or null (not every level measured yet)
let startFens = {}; // variant -> start FEN from GET /v1/variants
let game = null; // the game on the board
let board = null;
let pending = null; // AbortController of what the page is waiting for

// ---- strength ------------------------------------------------------------------------
// The selector's values are "level:N", or "elo:N" for POST /v1/move's `elo` (any strength
// between two levels) once every level of the variant is measured.
const ELO_STEP = 100;

// A level's option: its number, its measured Elo and time per move when calibrated.
function strengthOptions(variant) {
  const options = (levels[variant] || []).map(info => {
    let text = `Level ${info.level}`;
    if (info.rating) text += ` · Elo ${Math.round(info.rating.elo)}`;
    if (info.seconds_per_move != null) text += ` · ${info.seconds_per_move.toFixed(2)} s/move`;
    return { value: `level:${info.level}`, text };
  });
  const range = eloRanges[variant];
  if (range) {
    for (let elo = Math.ceil(range.low / ELO_STEP) * ELO_STEP; elo <= range.high; elo += ELO_STEP) {
      options.push({ value: `elo:${elo}`, text: `Elo ${elo}` });
    }
  }
  return options;
}

function strengthOf(value) {
  const [kind, n] = value.split(':');
  if (kind === 'level') return { request: { level: Number(n) }, name: `Level ${n}` };
  if (kind === 'elo') return { request: { elo: Number(n) }, name: `Elo ${n}` };
  throw new Error(`unknown strength ${value}`);
}

// ---- settings ------------------------------------------------------------------------

function fillStrength() {
  const select = $('strength');
  const previous = select.value;
  select.replaceChildren(
    ...strengthOptions($('variant').value).map(o => new Option(o.text, o.value)),
  );
  if ([...select.options].some(o => o.value === previous)) select.value = previous;
}

function readSettings(seedText) {
  const variant = $('variant').value;
  const colour = document.querySelector('input[name=colour]:checked').value;
  let seed = Math.floor(Math.random() * 2 ** 31);
  if (seedText !== '') {
    seed = Number(seedText);
    if (!/^\d+$/.test(seedText) || !Number.isSafeInteger(seed) || seed > MAX_SEED) {
      throw new ApiError(0, 'bad_seed', `the seed must be a whole number from 0 to ${MAX_SEED}`);
    }
  }
  const player = colour === 'random' ? (Math.random() < 0.5 ? 'red' : 'black') : colour;
  localStorage.setItem(
    SETTINGS_STORAGE,
    JSON.stringify({ variant, strength: $('strength').value, colour }),
  );
  return { variant, strengthValue: $('strength').value, player, seed };
}

function restoreSettings() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(SETTINGS_STORAGE) || '{}');
  } catch {
    saved = {};
  }
  const params = new URLSearchParams(location.search);
  const pick = (name, fallback) => params.get(name) ?? saved[name] ?? fallback;
  const variant = pick('variant', 'xiangqi');
  if (VARIANT_NAMES[variant]) $('variant').value = variant;
  fillStrength();
  const strength = params.has('level')
    ? `level:${params.get('level')}`
    : params.has('elo')
      ? `elo:${params.get('elo')}`
      : saved.strength;
  if ([...$('strength').options].some(o => o.value === strength)) $('strength').value = strength;
  const colour = pick('colour', 'red');
  const radio = document.querySelector(`input[name=colour][value="${colour}"]`);
  if (radio) radio.checked = true;
  // The game in the address: its seed and moves (the seed box stays for new games).
  return {
    seed: params.get('seed'),
    moves: params.has('moves') ? params.get('moves').split(',').filter(Boolean) : [],
  };
}

// Keep the game in the address (replaced, not pushed: Back leaves the page).
function saveGameInAddress() {
  const params = new URLSearchParams({
    variant: game.variant,
    ...Object.fromEntries(Object.entries(game.strength).map(([k, v]) => [k, String(v)])),
    colour: game.player,
    seed: String(game.seed),
  });
  if (game.moves.length) params.set('moves', game.moves.join(','));
  history.replaceState(null, '', `?${params}`);
}

// ---- talking to the service ------------------------------------------------------------

function cancelPending() {
  pending?.abort();
  pending = null;
}

// Run `request(signal)`; on an API error, say so plainly and wait: for the time the
// service asked (busy, rate limit) and then try again by itself, or for "Retry".
async function withRetry(what, request, signal) {
  for (;;) {
    try {
      const result = await request(signal);
      // An answer that came as the game changed (undo, new game) is not for this game.
      if (signal.aborted) throw abortError();
      hideError();
      return result;
    } catch (err) {
      if (signal.aborted || err.name === 'AbortError') throw abortError();
      if (!(err instanceof ApiError)) throw err;
      await waitForRetry(what, err, signal);
    }
  }
}

function abortError() {
  return new DOMException('superseded', 'AbortError');
}

function errorText(what, err) {
  if (err.status === 0 && err.code === 'unreachable') return `${what}: ${err.message}.`;
  const status = err.status ? `${err.status} ${err.code}` : err.code;
  return `${what} failed: ${err.message} (${status}).`;
}

// Errors that asking again can mend: the service unreachable, a missing key, busy,
// rate-limited, or an engine failure. Anything else (the game refused) needs a new game.
const retryable = err => [0, 401, 408, 429].includes(err.status) || err.status >= 500;

function waitForRetry(what, err, signal) {
  const box = $('error');
  const text = $('error-text');
  const retry = $('retry');
  if (!retryable(err)) {
    showProblem(errorText(what, err), err.code);
    // Settled only by what replaces this game (its signal is aborted then).
    return new Promise((_, reject) => {
      signal.addEventListener('abort', () => reject(abortError()), { once: true });
    });
  }
  retry.textContent = 'Retry now';
  box.hidden = false;
  box.dataset.code = err.code;
  box.dataset.status = String(err.status);
  if (err.status === 401) $('connection').open = true;
  const previousState = app.dataset.state;
  app.dataset.state = 'error';
  return new Promise((resolve, reject) => {
    let timer = null;
    const done = () => {
      clearInterval(timer);
      retry.onclick = null;
      signal.removeEventListener('abort', onAbort);
      app.dataset.state = previousState;
      resolve();
    };
    const onAbort = () => {
      clearInterval(timer);
      retry.onclick = null;
      hideError();
      reject(abortError());
    };
    signal.addEventListener('abort', onAbort);
    retry.onclick = done;
    if (err.retryAfter) {
      let left = Math.ceil(err.retryAfter);
      const tick = () => {
        text.textContent = `${errorText(what, err)} Trying again in ${left} s.`;
        box.dataset.retryIn = String(left);
        if (left-- <= 0) done();
      };
      tick();
      timer = setInterval(tick, 1000);
    } else {
      text.textContent = errorText(what, err);
      delete box.dataset.retryIn;
    }
  });
}

function hideError() {
  $('error').hidden = true;
}

// ---- the game --------------------------------------------------------------------------

// A new game with the settings of the form; or the game of the address (`loaded`: its
// seed and moves).
async function newGame(loaded = null) {
  cancelPending();
  hideError();
  let settings;
  try {
    settings = readSettings(loaded?.seed ?? $('seed').value.trim());
  } catch (err) {
    showProblem(err.message);
    return;
  }
  const strength = strengthOf(settings.strengthValue);
  game = {
    variant: settings.variant,
    player: settings.player,
    ladder: settings.player === 'red' ? 'black' : 'red',
    strength: strength.request,
    ladderName: strength.name,
    seed: settings.seed,
    moves: [...(loaded?.moves ?? [])],
    positions: [], // positions[i]: the service's verdict after i moves (when fetched)
    replies: new Map(), // ply -> the ladder's answer for the move of that ply
    blasts: new Map(), // ply -> points the move of that ply blew up
    shownPly: -1,
  };
  board?.destroy();
  const hands = settings.variant === 'crazyhouse-xiangqi';
  $('pockets-top').hidden = $('pockets-bottom').hidden = !hands;
  board = new Board(
    $('board'),
    hands ? { top: $('pocket-top'), bottom: $('pocket-bottom') } : null,
    {
      fen: startFens[settings.variant],
      orientation: settings.player,
      onMove: playerMoved,
      announce: say,
    },
  );
  app.dataset.variant = game.variant;
  app.dataset.player = game.player;
  $('top-name').textContent = `${game.ladderName} · ${capital(game.ladder)}`;
  $('bottom-name').textContent = `You · ${capital(game.player)}`;
  $('game-title').textContent =
    `${VARIANT_NAMES[game.variant]} against ${game.ladderName}, seed ${game.seed}`;
  $('moves').replaceChildren();
  await advance();
}

function playerMoved(move) {
  const pos = game.positions[game.moves.length];
  if (!pos || !pos.legal_moves.includes(move)) {
    say(`${move} is not a legal move here`);
    showPosition();
    return;
  }
  game.moves.push(move);
  board.lock();
  advance();
}

// Get the verdict on the current position, show it, and let the ladder move while it
// is the ladder's turn.
async function advance() {
  cancelPending();
  const controller = new AbortController();
  pending = controller;
  const { signal } = controller;
  const current = game;
  try {
    await judge(current, signal);
    while (!position(current).outcome && position(current).turn === current.ladder) {
      setState('thinking');
      const moves = [...current.moves];
      const reply = await withRetry(
        `${current.ladderName}'s move`,
        s => api.move(current.variant, moves, current.strength, current.seed, s),
        signal,
      );
      current.moves.push(reply.move);
      current.replies.set(current.moves.length, reply);
      await judge(current, signal);
    }
  } catch (err) {
    if (err.name === 'AbortError') return;
    showProblem(`Something went wrong in the page: ${err.message}`);
    throw err;
  } finally {
    if (pending === controller) pending = null;
  }
}

function position(g) {
  return g.positions[g.moves.length];
}

async function judge(current, signal) {
  const ply = current.moves.length;
  if (!current.positions[ply]) {
    setState('checking');
    const moves = [...current.moves];
    current.positions[ply] = await withRetry(
      'Checking the position',
      s => api.position(current.variant, moves, s),
      signal,
    );
  }
  showPosition();
}

function showPosition() {
  const ply = game.moves.length;
  const pos = game.positions[ply];
  const move = game.moves[ply - 1];
  const previous = game.positions[ply - 1];
  if (previous && !game.blasts.has(ply))
    game.blasts.set(ply, removedBy(previous.fen, pos.fen, move));
  const movable = !pos.outcome && pos.turn === game.player;
  board.show({
    fen: pos.fen,
    turn: pos.turn,
    lastMove: move,
    check: pos.check,
    dests: destsOf(pos.legal_moves),
    movable,
  });
  const blast = game.blasts.get(ply) || [];
  if (blast.length) board.explode(blast, ply > game.shownPly);
  game.shownPly = ply;
  saveGameInAddress();
  app.dataset.ply = String(ply);
  app.dataset.moves = game.moves.join(' ');
  app.dataset.fen = pos.fen;
  app.dataset.check = String(pos.check);
  if (pos.outcome) app.dataset.outcome = pos.outcome.reason;
  else delete app.dataset.outcome;
  setState(pos.outcome ? 'over' : movable ? 'your-turn' : 'thinking');
  renderMoves();
  renderLadderMove();
  renderStatus();
  if (move) say(describeMove(ply));
}

function setState(state) {
  app.dataset.state = state;
  $('undo').disabled = !canUndo();
  if (state === 'checking') $('status').textContent = 'Checking the move…';
}

function renderStatus() {
  const pos = position(game);
  const status = $('status');
  status.classList.toggle('check', pos.check && !pos.outcome);
  status.classList.toggle('over', !!pos.outcome);
  if (pos.outcome) {
    const o = pos.outcome;
    const who =
      o.winner === null
        ? 'a draw'
        : o.winner === game.player
          ? 'you win'
          : `${game.ladderName} wins`;
    status.textContent = `${REASONS[o.reason] || o.reason}: ${who} (${o.result}).`;
  } else if (pos.turn === game.player) {
    status.textContent = pos.check
      ? `Check! Your move (${capital(game.player)}).`
      : `Your move (${capital(game.player)}).`;
  } else {
    status.textContent = pos.check
      ? `Check! ${game.ladderName} is thinking…`
      : `${game.ladderName} is thinking…`;
  }
}

function wxfOf(ply) {
  return game.positions[ply]?.wxf?.[ply - 1] ?? game.moves[ply - 1];
}

function describeMove(ply) {
  const who = capital(toMove(ply - 1));
  const pos = game.positions[ply];
  const blast = game.blasts.get(ply) || [];
  let text = `${who} played ${wxfOf(ply)} (${game.moves[ply - 1]})`;
  if (blast.length) text += `; the blast removed ${blast.join(', ')}`;
  if (pos?.check && !pos.outcome) text += '; check';
  return text;
}

function renderMoves() {
  const list = $('moves');
  const rows = [];
  const ply = game.moves.length;
  const wxf = game.positions[ply]?.wxf || [];
  for (let i = 0; i < ply; i += 2) {
    const li = document.createElement('li');
    li.append(tag('no', `${i / 2 + 1}.`));
    for (const p of [i + 1, i + 2]) {
      if (p > ply) break;
      li.append(moveCell(p, wxf[p - 1] ?? game.moves[p - 1], p === ply));
    }
    rows.push(li);
  }
  list.replaceChildren(...rows);
  list.parentElement.scrollTop = list.parentElement.scrollHeight;
}

function moveCell(ply, text, last) {
  const cell = document.createElement('span');
  cell.className = 'move';
  cell.dataset.ply = String(ply);
  cell.dataset.move = game.moves[ply - 1];
  cell.title = game.moves[ply - 1];
  if (last) cell.classList.add('last');
  const name = document.createElement('b');
  name.textContent = text;
  cell.append(name);
  if (game.positions[ply]?.check) cell.append(tag('check', 'check'));
  const blast = game.blasts.get(ply) || [];
  if (blast.length) {
    const t = tag('blast-tag', `removed ${blast.length}`);
    t.title = `removed ${blast.join(' ')}`;
    cell.append(t);
  }
  const reply = game.replies.get(ply);
  if (reply) {
    const meta = tag('meta', scoreText(reply.score));
    meta.title = `depth ${reply.depth}, ${reply.nodes} nodes, ${reply.time_ms} ms`;
    cell.append(meta);
  }
  return cell;
}

function tag(className, text) {
  const span = document.createElement('span');
  span.className = className;
  span.textContent = text;
  return span;
}

function quiet(text) {
  const p = document.createElement('p');
  p.className = 'quiet';
  p.textContent = text;
  return p;
}

function scoreText(score) {
  if (score.mate != null)
    return score.mate > 0 ? `mate in ${score.mate}` : `mated in ${-score.mate}`;
  if (score.cp != null)
    return `${score.cp >= 0 ? '+' : '−'}${(Math.abs(score.cp) / 100).toFixed(2)}`;
  return 'random move';
}

// The ladder's last move: the move, its score (the ladder's view), depth, nodes, time.
function renderLadderMove() {
  let ply = game.moves.length;
  while (ply > 0 && !game.replies.has(ply)) ply--;
  const box = $('engine-info');
  if (ply === 0) {
    box.replaceChildren(quiet('None in this game yet.'));
    return;
  }
  const r = game.replies.get(ply);
  const rows = [
    ['Move', `${wxfOf(ply)} (${r.move})`],
    [
      'Score',
      r.score.cp == null && r.score.mate == null
        ? 'none: a random move, not searched'
        : `${scoreText(r.score)} for ${game.ladderName}`,
    ],
    ['Search', `depth ${r.depth} · ${r.nodes.toLocaleString('en')} nodes`],
    ['Time', `${r.time_ms} ms`],
  ];
  const dl = document.createElement('dl');
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dd.dataset.field = k.toLowerCase();
    dl.append(dt, dd);
  }
  box.replaceChildren(dl);
}

// Who is to move after `ply` moves: Red moves first, and the sides alternate.
const toMove = ply => (ply % 2 === 0 ? 'red' : 'black');

// The player has a move of theirs to take back.
function canUndo() {
  if (!game) return false;
  return game.moves.some((_, i) => toMove(i) === game.player);
}

// Take back the player's last move (and the ladder's answer to it).
function undo() {
  if (!canUndo()) return;
  cancelPending();
  hideError();
  do {
    game.moves.pop();
  } while (toMove(game.moves.length) !== game.player);
  const ply = game.moves.length;
  game.positions.length = ply + 1;
  for (const map of [game.replies, game.blasts]) {
    for (const p of [...map.keys()]) if (p > ply) map.delete(p);
  }
  game.shownPly = ply;
  say('Move taken back');
  advance();
}

// A problem that only a new game mends.
function showProblem(text, code = 'page') {
  const box = $('error');
  box.hidden = false;
  box.dataset.code = code;
  delete box.dataset.retryIn;
  $('error-text').textContent = text;
  $('retry').textContent = 'New game';
  $('retry').onclick = () => {
    hideError();
    history.replaceState(null, '', '?');
    newGame();
  };
  app.dataset.state = 'error';
}

function say(text) {
  $('announce').textContent = text;
}

// ---- start -----------------------------------------------------------------------------

async function start() {
  app.dataset.state = 'loading';
  const controller = new AbortController();
  pending = controller;
  const [variants, table] = await Promise.all([
    withRetry('Loading the rule sets', s => api.variants(s), controller.signal),
    withRetry('Loading the levels', s => api.levels(s), controller.signal),
  ]);
  pending = null;
  levels = table.levels;
  eloRanges = table.elo_range || {};
  startFens = Object.fromEntries(variants.variants.map(v => [v.id, v.start_fen]));
  $('variant').replaceChildren(
    ...variants.variants.map(v => new Option(VARIANT_NAMES[v.id] || v.id, v.id)),
  );
  const loaded = restoreSettings();
  $('variant').onchange = fillStrength;
  $('setup').onsubmit = event => {
    event.preventDefault();
    newGame();
  };
  $('undo').onclick = undo;
  $('api-key-form').onsubmit = event => {
    event.preventDefault();
    api.apiKey = $('api-key').value.trim();
    $('retry').click();
  };
  $('api-key').value = api.apiKey;
  await newGame(loaded);
}

start();
