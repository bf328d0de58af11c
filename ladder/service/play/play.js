// The /play page: a game against the ladder. The service judges every position
// (POST /v1/position: legal moves, check, outcome, WXF) and plays the ladder's moves
// (POST /v1/move); the page shows them and sends the player's moves.
//
// The address keeps the game (?variant=&level=&colour=&seed=&moves=h3e3,h10g8): a reload
// or a shared link continues it. For tests and tools, #app carries the game's state:
// data-state (loading, your-turn, thinking, checking, over, error), data-ply, data-moves,
// data-fen, data-check, data-outcome (of the game as played), and data-view-ply,
// data-view-fen (the position on the board: an earlier one while stepping back).

import { ApiError, LadderApi } from './api.js';
import { Analysis } from './analysis.js';
import { Board, destsOf, removedBy } from './board.js';
import { pgnText } from './pgn.js';
import { LANGUAGES, language, number, preferred, setLanguage, t } from './i18n.js';
import { CLOCK_CHOICES, GameClock, clockText, parseClock } from './clock.js';
import { CHOICES, notationChoice, notationName, setNotationChoice, written } from './notation.js';

const $ = id => document.getElementById(id);
const app = $('app');
const api = new LadderApi();

// The rule sets the page knows by name (the catalogues' `variant.*`).
const VARIANTS = ['xiangqi', 'atomic-xiangqi', 'crazyhouse-xiangqi'];
const variantName = id => (VARIANTS.includes(id) ? t(`variant.${id}`) : id);
// How a game ended, in words (the catalogues' `reason.*`; the service's code otherwise).
const REASONS = [
  'checkmate',
  'stalemate',
  'general-exploded',
  'perpetual-check',
  'repetition',
  'sixty-plies',
  'resigned',
  'draw-agreed',
  'time',
  'move-limit',
];
const reasonText = reason =>
  REASONS.includes(reason) ? t(`reason.${reason}`, { max: number(limits.max_moves) }) : reason;
const sideName = side => t(`side.${side}`);
// The ladder accepts a draw when its own last evaluation of the position (its score for
// the move that led here) is at most this: it expects to lose (docs/play.md).
const DRAW_ACCEPT_CP = -50;
// A level whose move is expected to take this long (s) or more shows a clock meanwhile.
const SLOW_SECONDS = 0.5;
const SCORE_STORAGE = 'mistboard-play-show-score';
const SETTINGS_STORAGE = 'mistboard-play-settings';
// What the address cannot hold, kept for a reload in this tab: the ladder's answers
// (their scores, book flags, search) and an ending the rules did not make (resigned,
// draw agreed, a fallen flag).
const GAME_STORAGE = 'mistboard-play-game';
const COLOURS = ['red', 'black', 'random'];
const MAX_SEED = Number.MAX_SAFE_INTEGER;

let levels = {}; // variant -> [LevelInfo] from GET /v1/levels
let eloRanges = {}; // variant -> {low, high} or null (not every level measured yet)
let startFens = {}; // variant -> start FEN from GET /v1/variants
// The bounds of a game the service takes (GET /v1/variants' `limits`): the moves of one
// request, and the plies one analysis request searches.
let limits = { max_moves: Infinity, analysis_max_plies: Infinity };
let game = null; // the game on the board
let board = null;
let pending = null; // AbortController of what the page is waiting for
// (view and renderMoves are hoisted; the analysis calls them once a game is on)
const analysis = new Analysis({ api, view: ply => view(ply), refresh: () => renderMoves() });

// ---- strength ------------------------------------------------------------------------
// The selector's values are "level:N", or "elo:N" for POST /v1/move's `elo` (any strength
// between two levels) once every level of the variant is measured.
const ELO_STEP = 100;

// A level's option: its number, its measured Elo with its 95 % interval and the games
// it rests on (or "unrated"), and its time per move.
function strengthOptions(variant) {
  const options = (levels[variant] || []).map(info => {
    let text = t('strength.option', { n: info.level, rating: ratingText(info.rating) });
    if (info.expected_seconds != null) {
      text += ` · ${t('strength.per_move', { seconds: secondsText(info.expected_seconds, true) })}`;
    }
    return { value: `level:${info.level}`, text };
  });
  const range = eloRanges[variant];
  if (range) {
    for (let elo = Math.ceil(range.low / ELO_STEP) * ELO_STEP; elo <= range.high; elo += ELO_STEP) {
      options.push({ value: `elo:${elo}`, text: t('strength.elo', { elo }) });
    }
  }
  return options;
}

// A rating as `ladder levels` and the API's messages print it (Python rounds a half to
// the even neighbour, Math.round up), so that a level reads the same everywhere.
function printed(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function ratingText(r) {
  if (!r) return t('strength.unrated');
  const how = r.extrapolated ? t('strength.extrapolated') : t('strength.games', { n: r.games });
  return t('strength.rating', {
    elo: printed(r.elo),
    lo: printed(r.elo_lo),
    hi: printed(r.elo_hi),
    how,
  });
}

function secondsText(s, about = false) {
  if (s < 0.1) return t('seconds.under');
  const value = s < 10 ? s.toFixed(1) : String(Math.round(s));
  return t(about ? 'seconds.about' : 'seconds.value', { s: value });
}

// What the strength selector's levels rest on, said under it.
function strengthHelp(variant) {
  const table = levels[variant] || [];
  const rated = table.filter(info => info.rating);
  if (!rated.length) {
    return t('strength.help_unrated');
  }
  if (rated.length < table.length) {
    return t('strength.help_some', { rated: rated.length, total: table.length });
  }
  return t('strength.help_all');
}

function levelInfo(variant, strength) {
  return (levels[variant] || []).find(info => info.level === strength.level) ?? null;
}

function strengthOf(value) {
  const [kind, n] = value.split(':');
  if (kind === 'level') return { level: Number(n) };
  if (kind === 'elo') return { elo: Number(n) };
  throw new Error(`unknown strength ${value}`);
}

// The ladder's name in this game, in the page's language: "Level 5", "Elo 900".
function ladderName(g) {
  return g.strength.level != null
    ? t('strength.level', { n: g.strength.level })
    : t('strength.elo', { elo: g.strength.elo });
}

// ---- settings ------------------------------------------------------------------------

function fillStrength() {
  const select = $('strength');
  const previous = select.value;
  select.replaceChildren(
    ...strengthOptions($('variant').value).map(o => new Option(o.text, o.value)),
  );
  if ([...select.options].some(o => o.value === previous)) select.value = previous;
  $('strength-help').textContent = strengthHelp($('variant').value);
}

function readSettings(seedText) {
  const variant = $('variant').value;
  const colour = document.querySelector('input[name=colour]:checked').value;
  let seed = Math.floor(Math.random() * 2 ** 31);
  if (seedText !== '') {
    seed = Number(seedText);
    if (!/^\d+$/.test(seedText) || !Number.isSafeInteger(seed) || seed > MAX_SEED) {
      throw new ApiError(0, 'bad_seed', t('setup.bad_seed', { max: MAX_SEED }));
    }
  }
  const player = colour === 'random' ? (Math.random() < 0.5 ? 'red' : 'black') : colour;
  const clock = parseClock($('clock').value);
  localStorage.setItem(
    SETTINGS_STORAGE,
    JSON.stringify({ variant, strength: $('strength').value, colour, clock: $('clock').value }),
  );
  return { variant, strengthValue: $('strength').value, player, seed, clock };
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
  // What the address asks for that this ladder does not have is said, not replaced.
  const wrong = [];
  const variant = pick('variant', 'xiangqi');
  const offered = [...$('variant').options].map(o => o.value);
  if (offered.includes(variant)) $('variant').value = variant;
  else if (params.has('variant')) {
    wrong.push(t('address.bad_variant', { value: variant, allowed: offered.join(', ') }));
  }
  fillStrength();
  const strength = params.has('level')
    ? `level:${params.get('level')}`
    : params.has('elo')
      ? `elo:${params.get('elo')}`
      : saved.strength;
  const values = [...$('strength').options].map(o => o.value);
  if (values.includes(strength)) $('strength').value = strength;
  else if (params.has('level') || params.has('elo')) {
    const levelsOffered = values.filter(v => v.startsWith('level:')).map(v => v.slice(6));
    wrong.push(
      params.has('level')
        ? t('address.bad_level', {
            value: params.get('level'),
            low: levelsOffered[0],
            high: levelsOffered.at(-1),
          })
        : t('address.bad_elo', { value: params.get('elo') }),
    );
  }
  const colour = pick('colour', 'red');
  const radio = document.querySelector(`input[name=colour][value="${colour}"]`);
  if (radio) radio.checked = true;
  else if (params.has('colour')) {
    wrong.push(t('address.bad_colour', { value: colour, allowed: COLOURS.join(', ') }));
  }
  const clock = pick('clock', 'none');
  try {
    const control = parseClock(clock);
    const value = control?.text ?? 'none';
    if (![...$('clock').options].some(o => o.value === value)) {
      $('clock').append(new Option(clockName(value), value));
    }
    $('clock').value = value;
  } catch {
    if (params.has('clock')) {
      const choices = CLOCK_CHOICES.filter(c => c !== 'none').join(', ');
      wrong.push(t('address.bad_clock', { value: clock, choices }));
    }
  }
  // The game in the address: its seed and moves (the seed box stays for new games).
  const moves = params.has('moves') ? params.get('moves').split(',').filter(Boolean) : [];
  if (moves.length > limits.max_moves) {
    wrong.push(
      t('address.too_long', { n: number(moves.length), max: number(limits.max_moves) }),
    );
  }
  return { seed: params.get('seed'), moves, wrong };
}

// Keep the game in the address (replaced, not pushed: Back leaves the page).
function saveGameInAddress() {
  const params = new URLSearchParams({
    variant: game.variant,
    ...Object.fromEntries(Object.entries(game.strength).map(([k, v]) => [k, String(v)])),
    colour: game.player,
    seed: String(game.seed),
  });
  if (game.clock) params.set('clock', game.clock.text);
  if (game.moves.length) params.set('moves', game.moves.join(','));
  history.replaceState(null, '', `?${params}`);
}

// The game's identity: a stored answer is for the same rule set, strength, seed, colour.
const gameKey = g => JSON.stringify([g.variant, g.strength, g.seed, g.player, g.clock?.text]);

function saveGameInSession() {
  const stored = { key: gameKey(game), replies: [...game.replies], ended: null };
  stored.moves = game.moves.join(',');
  if (game.ended) stored.ended = { ...game.ended, moves: stored.moves };
  if (game.timer) stored.clock = game.timer.snapshot();
  sessionStorage.setItem(GAME_STORAGE, JSON.stringify(stored));
}

// After a reload: the ladder's answers to the address's moves and how the game ended,
// if this tab had them for this very game.
function restoreFromSession(g) {
  let stored = null;
  try {
    stored = JSON.parse(sessionStorage.getItem(GAME_STORAGE) || 'null');
  } catch {
    stored = null;
  }
  if (!stored || stored.key !== gameKey(g)) return;
  if (g.timer && stored.clock && stored.moves === g.moves.join(',')) g.timer.restore(stored.clock);
  for (const [ply, reply] of stored.replies) {
    if (ply <= g.moves.length && g.moves[ply - 1] === reply.move) g.replies.set(ply, reply);
  }
  if (stored.ended && stored.ended.moves === g.moves.join(',')) {
    const { moves, ...ended } = stored.ended;
    g.ended = ended;
  }
}

// ---- talking to the service ------------------------------------------------------------

function cancelPending() {
  pending?.abort();
  pending = null;
  stopClock();
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
  if (err.status === 0 && err.code === 'unreachable') {
    return t('error.unreachable', { what, message: err.message });
  }
  const status = err.status ? `${err.status} ${err.code}` : err.code;
  return t('error.failed', { what, message: err.message, status });
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
  retry.textContent = t('error.retry_now');
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
        text.textContent = t('error.trying_again', { text: errorText(what, err), n: left });
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
  game?.timer?.stop();
  let settings;
  try {
    settings = readSettings(loaded?.seed ?? $('seed').value.trim());
  } catch (err) {
    showProblem(err.message);
    return;
  }
  game = {
    variant: settings.variant,
    player: settings.player,
    ladder: settings.player === 'red' ? 'black' : 'red',
    strength: strengthOf(settings.strengthValue),
    seed: settings.seed,
    moves: [...(loaded?.moves ?? [])],
    positions: [], // positions[i]: the service's verdict after i moves (when fetched)
    replies: new Map(), // ply -> the ladder's answer for the move of that ply
    blasts: new Map(), // ply -> points the move of that ply blew up
    shownPly: -1,
    viewPly: null, // the ply on the board while stepping through the game (null: the last)
    ended: null, // a resignation or an agreed draw: {reason, winner, result}
    drawDeclined: -1, // the ply at which the ladder last declined a draw
    hint: null, // {ply, move, level, wxf, score}: the hint on the board
    flipped: false, // the ladder's side at the bottom
    clock: settings.clock, // {text, initialMs, incrementMs} or null: no clock
    timer: null, // its GameClock
  };
  if (game.clock) {
    const g = game;
    g.timer = new GameClock(g.clock, side => flagFell(g, side));
  }
  if (loaded) restoreFromSession(game);
  makeBoard();
  app.dataset.variant = game.variant;
  app.dataset.player = game.player;
  app.dataset.seed = String(game.seed);
  renderNames();
  $('moves').replaceChildren();
  $('offer-answer').textContent = '';
  $('hint-text').textContent = '';
  analysis.reset(game);
  await advance();
  if (loaded) await recallLadderMove(game);
}

// A game opened from its address in a tab that did not play it (a shared link) has no
// answer for the ladder's last move: ask the ladder again. Its moves are reproducible
// from the seed, so the answer is the one it gave, and is shown only if it is the same
// move (on a clock its time decided the move, and the game's clock is not in the address).
async function recallLadderMove(current) {
  const first = current.player === 'red' ? 2 : 1; // the ladder's first ply
  let ply = current.moves.length;
  if (ply >= first && (ply - first) % 2) ply -= 1;
  if (ply < first || current.replies.has(ply) || current.clock) return;
  const before = current.moves.slice(0, ply - 1);
  let reply;
  try {
    reply = await api.move(current.variant, before, current.strength, current.seed, undefined);
  } catch {
    return; // a missing answer stays missing ("None in this game yet")
  }
  if (game !== current || current.moves[ply - 1] !== reply.move) return;
  current.replies.set(ply, reply);
  saveGameInSession();
  renderLadderMove();
}

// The side at the bottom of the board: the player's, unless the board is flipped.
const bottomSide = () => (game.flipped ? game.ladder : game.player);

// The board of the game, the side at the bottom as it is now.
function makeBoard() {
  board?.destroy();
  const hands = game.variant === 'crazyhouse-xiangqi';
  $('pockets-top').hidden = $('pockets-bottom').hidden = !hands;
  board = new Board(
    $('board'),
    hands ? { top: $('pocket-top'), bottom: $('pocket-bottom') } : null,
    {
      fen: startFens[game.variant],
      orientation: bottomSide(),
      onMove: playerMoved,
      announce: say,
    },
  );
  app.dataset.orientation = bottomSide();
  $('flip').setAttribute('aria-pressed', String(game.flipped));
}

function flip() {
  if (!game) return;
  game.flipped = !game.flipped;
  makeBoard();
  renderNames();
  if (game.positions[shownPly()]) showPosition();
}

// The ladder's strength as GET /v1/levels gives it: its Elo and its time per move.
function strengthText(g) {
  const info = levelInfo(g.variant, g.strength);
  if (!info) return null;
  const parts = [info.rating ? t('strength.elo', { elo: printed(info.rating.elo) }) : t('strength.unrated')];
  if (info.expected_seconds != null) {
    parts.push(t('strength.per_move', { seconds: secondsText(info.expected_seconds, true) }));
  }
  return parts.join(' · ');
}

// The players' names (the ladder's with its strength) and the game's title.
function renderNames() {
  const ladder = ladderName(game);
  const names = {
    [game.ladder]: [t('side.ladder', { ladder, side: sideName(game.ladder) }), strengthText(game)],
    [game.player]: [t('side.you', { side: sideName(game.player) }), null],
  };
  const top = game.flipped ? game.player : game.ladder;
  const bottom = top === game.player ? game.ladder : game.player;
  [$('top-name').textContent, $('top-strength').textContent] = names[top];
  [$('bottom-name').textContent, $('bottom-strength').textContent] = names[bottom];
  $('game-title').textContent = t('game.title', { variant: variantName(game.variant), ladder });
}

function playerMoved(move) {
  const pos = game.positions[game.moves.length];
  if (!pos || !pos.legal_moves.includes(move) || game.viewPly !== null || outcome(game)) {
    say(t('moves.illegal', { move }));
    showPosition();
    return;
  }
  game.moves.push(move);
  game.timer?.moved(game.player);
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
    while (!outcome(current) && position(current).turn === current.ladder) {
      setState('thinking');
      const moves = [...current.moves];
      startClock(current);
      // On a clock the ladder's time runs from the request to its answer (the round
      // trip), and the request says what it has left.
      current.timer?.start(current.ladder);
      const clock = current.timer && {
        remaining_ms: Math.floor(current.timer.remaining(current.ladder)),
        increment_ms: current.clock.incrementMs,
      };
      const reply = await withRetry(
        t('what.ladder_move', { ladder: ladderName(current) }),
        s => api.move(current.variant, moves, current.strength, current.seed, s, clock),
        signal,
      );
      current.timer?.moved(current.ladder);
      stopClock();
      current.moves.push(reply.move);
      current.replies.set(current.moves.length, reply);
      await judge(current, signal);
    }
  } catch (err) {
    if (err.name === 'AbortError') return;
    showProblem(t('page.error', { message: err.message }));
    throw err;
  } finally {
    if (pending === controller) {
      pending = null;
      stopClock();
    }
  }
}

// A game as long as the service takes (its moves in one request) ends there, said
// plainly, before a longer request would be refused: a draw, as no side has won.
function reachBound(g) {
  if (g.ended || position(g)?.outcome || g.moves.length < limits.max_moves) return;
  g.ended = { reason: 'move-limit', winner: null, result: '1/2-1/2' };
  $('offer-answer').textContent = t('bound.moves', { max: number(limits.max_moves) });
}

function position(g) {
  return g.positions[g.moves.length];
}

// How the game ended: resigned or agreed on the page, or the rules' ending; null while
// it goes on.
function outcome(g) {
  return g.ended ?? position(g)?.outcome ?? null;
}

async function judge(current, signal) {
  const ply = current.moves.length;
  if (!current.positions[ply]) {
    setState('checking');
    const moves = [...current.moves];
    current.positions[ply] = await withRetry(
      t('what.position'),
      s => api.position(current.variant, moves, s),
      signal,
    );
  }
  reachBound(current);
  showPosition();
}

// ---- the ladder's clock ------------------------------------------------------------------
// While a slow level thinks: the time since the move was asked for, against the level's
// expected time (GET /v1/levels: its calibrated median, else its nodes at the engine's
// measured speed). Asked by Elo, the elapsed time alone once it passes a second.

let clock = null;

function startClock(g) {
  stopClock();
  const expected = expectedSeconds(g);
  if (expected !== null && expected < SLOW_SECONDS) return;
  const started = performance.now();
  const box = $('thinking');
  const bar = $('think-progress');
  const tick = () => {
    const elapsed = (performance.now() - started) / 1000;
    if (expected === null && elapsed < 1) return;
    box.hidden = false;
    box.dataset.elapsed = elapsed.toFixed(1);
    if (expected === null) {
      bar.removeAttribute('value');
      $('think-time').textContent = t('clock.elapsed', { s: elapsed.toFixed(1) });
    } else {
      box.dataset.expected = expected.toFixed(1);
      bar.max = expected;
      bar.value = Math.min(elapsed, expected);
      $('think-time').textContent =
        t('clock.of_about', { s: elapsed.toFixed(1), expected: secondsText(expected) }) +
        (elapsed > expected * 1.5 ? t('clock.busy') : '');
    }
  };
  tick();
  clock = setInterval(tick, 100);
}

// The level's expected time; once the ladder has searched in this game, its nodes at the
// speed those searches ran (the server's speed now: a loaded one is slower).
function expectedSeconds(g) {
  const info = levelInfo(g.variant, g.strength);
  if (!info) return null;
  const searched = [...g.replies.values()].filter(r => !r.book && r.nodes >= 10_000);
  const recent = searched.slice(-3);
  const ms = recent.reduce((sum, r) => sum + r.time_ms, 0);
  if (!recent.length || ms <= 0) return info.expected_seconds;
  const nodesPerMs = recent.reduce((sum, r) => sum + r.nodes, 0) / ms;
  return info.nodes / nodesPerMs / 1000;
}

function stopClock() {
  clearInterval(clock);
  clock = null;
  $('thinking').hidden = true;
}

// ---- showing a position ------------------------------------------------------------------

// The ply on the board: the game's last, or an earlier one while stepping through it.
const shownPly = () => (game ? (game.viewPly ?? game.moves.length) : 0);

// Show the position at shownPly() (fetching its verdict first when the page has not got
// it: a game loaded from the address), the move list, the ladder's move and the status.
function showPosition() {
  const live = game.moves.length;
  const ply = shownPly();
  const pos = game.positions[ply];
  if (!pos) {
    fetchPosition(game, ply);
    return;
  }
  const move = game.moves[ply - 1];
  const previous = game.positions[ply - 1];
  if (previous && !game.blasts.has(ply))
    game.blasts.set(ply, removedBy(previous.fen, pos.fen, move));
  const over = !!outcome(game);
  const movable = ply === live && !over && pos.turn === game.player;
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
  board.arrows(arrowsAt(ply));
  saveGameInAddress();
  saveGameInSession();
  const livePos = game.positions[live];
  app.dataset.ply = String(live);
  app.dataset.moves = game.moves.join(' ');
  app.dataset.viewPly = String(ply);
  app.dataset.viewFen = pos.fen;
  if (livePos) {
    app.dataset.fen = livePos.fen;
    app.dataset.check = String(livePos.check);
  }
  const end = outcome(game);
  if (end) app.dataset.outcome = end.reason;
  else delete app.dataset.outcome;
  if (livePos || end) {
    setState(end ? 'over' : livePos.turn === game.player ? 'your-turn' : 'thinking');
  }
  if (end) game.timer?.stop();
  else if (livePos?.turn === game.player) game.timer?.start(game.player);
  renderClocks();
  renderMoves();
  renderLadderMove();
  renderStatus();
  renderView();
  analysis.select(ply);
  if (move) say(describeMove(ply));
}

// The verdict on an earlier position, asked for when the player steps to it.
async function fetchPosition(g, ply) {
  g.fetching ??= new Set();
  if (g.fetching.has(ply)) return;
  g.fetching.add(ply);
  try {
    g.positions[ply] = await api.position(g.variant, g.moves.slice(0, ply));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say(errorText(t('what.position'), err));
    return;
  } finally {
    g.fetching.delete(ply);
  }
  if (game === g && shownPly() === ply) showPosition();
}

// Arrows on the board at `ply`: the hint, or the best line the analysis found there.
function arrowsAt(ply) {
  if (game.hint && game.hint.ply === ply) return [{ move: game.hint.move, brush: 'green' }];
  return analysis.arrowsAt(ply);
}

// Step to `ply` (0: the start); the game itself is kept, and goes on as before.
function view(ply) {
  if (!game) return;
  const live = game.moves.length;
  const to = Math.max(0, Math.min(live, ply));
  game.viewPly = to === live ? null : to;
  showPosition();
}

function renderView() {
  const live = game.moves.length;
  const ply = shownPly();
  $('first').disabled = $('back').disabled = ply === 0;
  $('forward').disabled = $('last').disabled = ply === live;
  $('view-status').textContent =
    ply === live ? '' : t('steps.viewing', { ply, live });
  app.dataset.viewing = String(ply !== live);
}

function setState(state) {
  app.dataset.state = state;
  $('undo').disabled = !canUndo();
  $('resign').disabled = !game || !!outcome(game) || !game.positions.length;
  $('offer-draw').disabled = !canOfferDraw();
  $('hint').disabled = !canHint();
  analysis.enable(!!game && !!position(game));
  // No game on the board (its start was refused): nothing to step through or export.
  const none = !game || !position(game);
  for (const id of ['pgn-notation', 'pgn-iccs']) $(id).disabled = none;
  $('flip').disabled = none;
  if (none) for (const id of ['first', 'back', 'forward', 'last']) $(id).disabled = true;
  if (state === 'checking') $('status').textContent = t('status.checking');
}

function renderStatus() {
  const pos = position(game);
  const end = outcome(game);
  const status = $('status');
  status.classList.toggle('check', !!pos?.check && !end);
  status.classList.toggle('over', !!end);
  if (end) {
    const who =
      end.winner === null
        ? t('status.draw')
        : end.winner === game.player
          ? t('status.you_win')
          : t('status.ladder_wins', { ladder: ladderName(game) });
    status.textContent = t('status.over', {
      reason: end.reason === 'resigned' ? t('reason.you_resigned') : reasonText(end.reason),
      who,
      result: end.result,
    });
  } else if (!pos) {
    status.textContent = t('status.checking');
  } else if (pos.turn === game.player) {
    const side = sideName(game.player);
    status.textContent = t(pos.check ? 'status.check_your_move' : 'status.your_move', { side });
  } else {
    const ladder = ladderName(game);
    status.textContent = t(pos.check ? 'status.check_thinking' : 'status.thinking', { ladder });
  }
}

// The move of `ply` in the notation chosen.
function moveText(ply) {
  return written(game.positions[game.moves.length]?.notations, game.moves)[ply - 1] ?? game.moves[ply - 1];
}

function describeMove(ply) {
  const side = sideName(toMove(ply - 1));
  const pos = game.positions[ply];
  const blast = game.blasts.get(ply) || [];
  let text = t('moves.played', { side, wxf: moveText(ply), move: game.moves[ply - 1] });
  if (blast.length) text += t('moves.blast', { points: blast.join(', ') });
  if (pos?.outcome?.reason === 'checkmate') text += t('moves.played_mate');
  else if (pos?.check && !pos.outcome) text += t('moves.played_check');
  return text;
}

// The move list: each move a button (a click or Enter shows that position); one of them
// in the Tab order, the shown one (or the last), and the arrow keys, Home and End step
// from there with the focus following the shown move.
function renderMoves() {
  const list = $('moves');
  const hadFocus = list.contains(document.activeElement);
  const rows = [];
  const ply = game.moves.length;
  const shown = shownPly();
  const texts = written(game.positions[ply]?.notations, game.moves);
  let current = null;
  for (let i = 0; i < ply; i += 2) {
    const li = document.createElement('li');
    li.append(tag('no', `${i / 2 + 1}.`));
    for (const p of [i + 1, i + 2]) {
      if (p > ply) break;
      const cell = moveCell(p, texts[p - 1] ?? game.moves[p - 1], p === ply);
      if (p === shown) {
        cell.classList.add('shown');
        cell.setAttribute('aria-current', 'step');
        current = cell;
      }
      li.append(cell);
    }
    rows.push(li);
  }
  list.replaceChildren(...rows);
  const tabbable = current ?? list.querySelector(shown === 0 ? '.move' : '.move.last');
  if (tabbable) tabbable.tabIndex = 0;
  if (hadFocus) (tabbable ?? $('moves-heading')).focus({ preventScroll: true });
  const scroller = list.parentElement;
  if (game.viewPly === null || !current) scroller.scrollTop = scroller.scrollHeight;
  else scroller.scrollTop = current.offsetTop - scroller.offsetTop - scroller.clientHeight / 2;
}

function moveCell(ply, text, last) {
  const cell = document.createElement('button');
  cell.type = 'button';
  cell.tabIndex = -1;
  cell.className = 'move';
  cell.dataset.ply = String(ply);
  cell.dataset.move = game.moves[ply - 1];
  cell.title = game.moves[ply - 1];
  cell.onclick = () => view(ply);
  if (last) cell.classList.add('last');
  const name = document.createElement('b');
  name.textContent = text;
  cell.append(name);
  analysis.markMove(cell, ply);
  // The mating move is "mate", not "check".
  if (game.positions[ply]?.outcome?.reason === 'checkmate') {
    cell.append(tag('check mate', t('moves.mate')));
  } else if (game.positions[ply]?.check) {
    cell.append(tag('check', t('moves.check')));
  }
  const blast = game.blasts.get(ply) || [];
  if (blast.length) {
    const removed = tag('blast-tag', t('moves.removed', { n: blast.length }));
    removed.title = t('moves.removed_points', { points: blast.join(' ') });
    cell.append(removed);
  }
  const reply = game.replies.get(ply);
  if (reply?.book) cell.append(tag('book', t('moves.book')));
  if (reply && scoresShown() && !reply.book) {
    const meta = tag('meta', scoreText(reply.score));
    meta.title = t('moves.search_title', {
      depth: reply.depth,
      nodes: reply.nodes,
      ms: reply.time_ms,
    });
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
  if (score.mate != null) {
    return score.mate > 0
      ? t('score.mate_in', { n: score.mate })
      : t('score.mated_in', { n: -score.mate });
  }
  if (score.cp != null)
    return `${score.cp >= 0 ? '+' : '−'}${(Math.abs(score.cp) / 100).toFixed(2)}`;
  return t('score.none');
}

// The ladder's evaluation gives the game away: hidden while the game goes on, unless
// the player asks for it; shown once it is over and in the analysis.
function scoresShown() {
  return $('show-score').checked || (!!game && (!!outcome(game) || analysis.active()));
}

// The ladder's last move: the move, its score (the ladder's view), depth, nodes, time.
function renderLadderMove() {
  let ply = game.moves.length;
  while (ply > 0 && !game.replies.has(ply)) ply--;
  const box = $('engine-info');
  if (ply === 0) {
    box.replaceChildren(quiet(t('engine.none')));
    return;
  }
  const r = game.replies.get(ply);
  let score;
  // A book move is said to be one whether scores are shown or not: it has none.
  if (r.book) score = t('engine.book');
  else if (!scoresShown()) score = t('engine.hidden');
  else if (r.score.cp == null && r.score.mate == null) {
    score = r.hurried ? t('engine.hurried') : t('engine.unscored');
  } else score = t('engine.score_for', { score: scoreText(r.score), ladder: ladderName(game) });
  const search = r.book
    ? t('engine.from_book')
    : t('engine.depth_nodes', { depth: r.depth, nodes: number(r.nodes) });
  const list = rows => {
    const dl = document.createElement('dl');
    for (const [k, v] of rows) {
      const dt = document.createElement('dt');
      dt.textContent = t(`engine.${k}`);
      const dd = document.createElement('dd');
      dd.textContent = v;
      dd.dataset.field = k;
      dl.append(dt, dd);
    }
    return dl;
  };
  // The search's figures are for those who want them: behind "Details".
  const more = document.createElement('details');
  more.className = 'more';
  more.open = !!box.querySelector('details')?.open;
  const summary = document.createElement('summary');
  summary.textContent = t('engine.details');
  more.append(
    summary,
    list([
      ['search', search],
      ['time', t('engine.ms', { ms: r.time_ms })],
    ]),
  );
  box.replaceChildren(
    list([
      ['move', notationName() === 'coordinates' ? r.move : `${moveText(ply)} (${r.move})`],
      ['score', score],
    ]),
    more,
  );
}

// Who is to move after `ply` moves: Red moves first, and the sides alternate.
const toMove = ply => (ply % 2 === 0 ? 'red' : 'black');

// The player has a move of theirs to take back (not after resigning or a draw agreed).
function canUndo() {
  if (!game || game.ended || game.clock) return false; // no take-backs on a clock
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
  game.viewPly = null;
  game.hint = null;
  analysis.truncate(ply);
  say(t('moves.taken_back'));
  advance();
}

// ---- resigning, offering a draw ----------------------------------------------------------

// ---- the notation ----------------------------------------------------------------------

// The switch, the move list's heading, the PGN button and every move shown, in the
// notation chosen.
function renderNotation() {
  const select = $('notation');
  select.replaceChildren(...CHOICES.map(c => new Option(t(`notation.${c}`), c)));
  select.value = notationChoice();
  $('moves-notation').textContent = t('notation.heading', { name: t(`notation.${select.value}`) });
  $('pgn-notation').textContent = t('export.pgn', { name: t(`notation.${select.value}`) });
  if (game && position(game)) showPosition();
  analysis.draw();
}

// ---- the game clock ------------------------------------------------------------------

// A clock as the setup offers it: "5+3" -> "5 min + 3 s".
function clockName(value) {
  if (value === 'none') return t('clock.none');
  const [minutes, increment] = value.split('+');
  return t('clock.choice', { minutes, increment });
}

// A side's time ran out: it loses (the site's rules: games end by timeout too).
function flagFell(g, side) {
  if (game !== g || outcome(g)) return;
  const winner = side === 'red' ? 'black' : 'red';
  const text =
    side === g.player
      ? t('clock.you_flagged')
      : t('clock.ladder_flagged', { ladder: ladderName(g) });
  endGame({ reason: 'time', winner, result: winner === 'red' ? '1-0' : '0-1' }, text);
}

let clockTicker = null;

// Both clocks by the names (the bottom one the bottom side's), and a tick while one runs.
function renderClocks() {
  const timer = game?.timer;
  for (const [id, side] of [
    ['top-clock', bottomSide() === 'red' ? 'black' : 'red'],
    ['bottom-clock', bottomSide()],
  ]) {
    const el = $(id);
    el.hidden = !timer;
    if (!timer) continue;
    const ms = timer.remaining(side);
    el.textContent = clockText(ms);
    el.dataset.side = side;
    el.dataset.ms = String(Math.round(ms));
    el.setAttribute('aria-label', t('clock.label', { side: sideName(side), time: clockText(ms) }));
    el.classList.toggle('running', timer.running === side);
    el.classList.toggle('low', ms < 10_000);
  }
  const running = !!timer?.running;
  if (running && !clockTicker) clockTicker = setInterval(renderClocks, 100);
  if (!running && clockTicker) {
    clearInterval(clockTicker);
    clockTicker = null;
  }
}

function endGame(ended, text) {
  cancelPending();
  hideError();
  game.ended = ended;
  game.viewPly = null;
  $('offer-answer').textContent = text;
  showPosition();
  say(text);
}

// A second click within a few seconds resigns (a single slip of the finger does not).
function resign() {
  if (!game || outcome(game)) return;
  const button = $('resign');
  if (button.dataset.armed !== 'true') {
    button.dataset.armed = 'true';
    button.textContent = t('controls.resign_confirm');
    setTimeout(disarmResign, 4000);
    return;
  }
  disarmResign();
  endGame(
    { reason: 'resigned', winner: game.ladder, result: game.ladder === 'red' ? '1-0' : '0-1' },
    t('resign.done'),
  );
}

function disarmResign() {
  const button = $('resign');
  button.dataset.armed = 'false';
  button.textContent = t('controls.resign');
}

// On the player's turn, once per move.
function canOfferDraw() {
  return (
    !!game &&
    !outcome(game) &&
    game.viewPly === null &&
    position(game)?.turn === game.player &&
    game.drawDeclined !== game.moves.length
  );
}

// The ladder's answer to a draw offer, from its own evaluation of this very position:
// the score of its last move, which led here (no new search: nothing waits, and it is
// what the ladder itself acted on). It accepts when it expects to lose.
function drawVerdict(reply) {
  const score = reply?.score;
  if (!score || (score.cp == null && score.mate == null)) {
    const why = reply?.book ? t('draw.book') : t('draw.no_evaluation');
    return { accept: false, unscored: true, why };
  }
  const accept = score.mate != null ? score.mate < 0 : score.cp <= DRAW_ACCEPT_CP;
  return { accept, unscored: false, why: t('draw.rates', { score: scoreText(score) }) };
}

function offerDraw() {
  if (!canOfferDraw()) return;
  const verdict = drawVerdict(game.replies.get(game.moves.length));
  if (verdict.accept) {
    endGame(
      { reason: 'draw-agreed', winner: null, result: '1/2-1/2' },
      t('draw.accepts', { ladder: ladderName(game), why: verdict.why }),
    );
    return;
  }
  game.drawDeclined = game.moves.length;
  const ladder = ladderName(game);
  const text =
    scoresShown() || verdict.unscored
      ? t('draw.declines_why', { ladder, why: verdict.why })
      : t('draw.declines', { ladder });
  $('offer-answer').textContent = text;
  $('offer-draw').disabled = true;
  say(text);
}

// ---- hints -------------------------------------------------------------------------------

function canHint() {
  return (
    !!game &&
    !outcome(game) &&
    game.viewPly === null &&
    app.dataset.state === 'your-turn' &&
    !(game.hint && game.hint.ply === game.moves.length)
  );
}

// The best move at the level the player chose (POST /v1/move, the game's seed), drawn
// as an arrow on the board until the next move.
async function hint() {
  if (!canHint()) return;
  const g = game;
  const ply = g.moves.length;
  const level = Number($('hint-level').value);
  $('hint').disabled = true;
  $('hint-text').textContent = t('hint.looking', { n: level });
  try {
    const reply = await api.move(g.variant, [...g.moves], { level }, g.seed);
    const after = await api.position(g.variant, [...g.moves, reply.move]);
    if (game !== g || g.moves.length !== ply) return;
    const wxf = written(after.notations, [...g.moves, reply.move])[ply] ?? reply.move;
    g.hint = { ply, move: reply.move, level, wxf, score: reply.score };
    const score = scoresShown() && reply.score.cp != null ? ` (${scoreText(reply.score)})` : '';
    $('hint-text').textContent = t('hint.text', { n: level, wxf, move: reply.move, score });
    $('hint-text').dataset.move = reply.move;
    board.arrows(arrowsAt(ply));
    say(t('hint.say', { wxf }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    $('hint-text').textContent = errorText(t('what.hint'), err);
  } finally {
    $('hint').disabled = !canHint();
  }
}

// ---- export ------------------------------------------------------------------------------

// kind: 'iccs', or 'written' (the moves as the notation chosen writes them).
function exportPgn(kind) {
  if (!game || !position(game)) return;
  const notation = kind === 'iccs' ? 'iccs' : notationName();
  const end = outcome(game);
  const text = pgnText({
    variant: game.variant,
    startFen: startFens[game.variant],
    moves: game.moves,
    written: written(position(game).notations, game.moves),
    notation,
    red: game.player === 'red' ? t('pgn.you') : t('pgn.ladder', { ladder: ladderName(game) }),
    black: game.player === 'black' ? t('pgn.you') : t('pgn.ladder', { ladder: ladderName(game) }),
    result: end?.result ?? '*',
    termination: end ? reasonText(end.reason) : t('pgn.unterminated'),
    timeControl: game.clock ? `${game.clock.initialMs / 1000}+${game.clock.incrementMs / 1000}` : '-',
    site: location.host,
    date: new Date(),
    seed: game.seed,
  });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' }));
  link.download = `ladder-${game.variant}-${game.seed}-${notation}.pgn`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

// A problem that only a new game mends.
function showProblem(text, code = 'page') {
  const box = $('error');
  box.hidden = false;
  box.dataset.code = code;
  delete box.dataset.retryIn;
  $('error-text').textContent = text;
  $('retry').textContent = t('error.new_game');
  $('retry').onclick = () => {
    hideError();
    history.replaceState(null, '', '?');
    newGame();
  };
  setState('error');
  $('status').textContent = t('status.stopped'); // not "Checking…" over it
}

function say(text) {
  $('announce').textContent = text;
}

// ---- start -----------------------------------------------------------------------------

// The page's strings in `code`: the HTML's, the selectors', and what shows the game.
async function useLanguage(code, remember = false) {
  await setLanguage(code, remember);
  $('language').value = code;
  for (const option of $('variant').options) option.text = variantName(option.value);
  fillStrength();
  for (const option of $('clock').options) option.text = clockName(option.value);
  renderNotation();
  for (const option of $('hint-level').options) {
    option.text = t('strength.level', { n: option.value });
  }
  if (!game) return;
  renderClocks();
  board.translate();
  renderNames();
  if (position(game)) showPosition();
  analysis.draw();
}

async function start() {
  app.dataset.state = 'loading';
  $('language').replaceChildren(...LANGUAGES.map(l => new Option(l.name, l.code)));
  await setLanguage(preferred());
  $('language').value = language();
  $('status').textContent = t('status.loading');
  $('language').onchange = () => useLanguage($('language').value, true);
  const controller = new AbortController();
  pending = controller;
  const [variants, table] = await Promise.all([
    withRetry(t('what.variants'), s => api.variants(s), controller.signal),
    withRetry(t('what.levels'), s => api.levels(s), controller.signal),
  ]);
  pending = null;
  levels = table.levels;
  eloRanges = table.elo_range || {};
  startFens = Object.fromEntries(variants.variants.map(v => [v.id, v.start_fen]));
  limits = variants.limits ?? limits;
  analysis.limits = limits;
  $('variant').replaceChildren(
    ...variants.variants.map(v => new Option(variantName(v.id), v.id)),
  );
  $('clock').replaceChildren(...CLOCK_CHOICES.map(c => new Option(clockName(c), c)));
  const loaded = restoreSettings();
  $('flip').onclick = flip;
  $('variant').onchange = fillStrength;
  $('setup').onsubmit = event => {
    event.preventDefault();
    newGame();
  };
  $('undo').onclick = undo;
  $('resign').onclick = resign;
  $('offer-draw').onclick = offerDraw;
  $('first').onclick = () => view(0);
  $('back').onclick = () => view(shownPly() - 1);
  $('forward').onclick = () => view(shownPly() + 1);
  $('last').onclick = () => view(Infinity);
  $('hint').onclick = hint;
  $('analyse').onclick = () => analysis.start();
  $('pgn-notation').onclick = () => exportPgn(notationName() === 'coordinates' ? 'iccs' : 'written');
  $('notation').onchange = () => {
    setNotationChoice($('notation').value);
    renderNotation();
  };
  renderNotation();
  $('pgn-iccs').onclick = () => exportPgn('iccs');
  $('show-score').checked = localStorage.getItem(SCORE_STORAGE) === 'true';
  $('show-score').onchange = () => {
    localStorage.setItem(SCORE_STORAGE, String($('show-score').checked));
    if (game && position(game)) showPosition();
  };
  $('hint-level').replaceChildren(
    ...[1, 2, 3, 4, 5, 6, 7, 8].map(n => new Option(t('strength.level', { n }), String(n))),
  );
  $('hint-level').value = '8';
  // Off the board and the form: arrows step through the game, Home and End.
  document.addEventListener('keydown', event => {
    if (!game || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.('#board, input, select, textarea, .pocket, summary')) return;
    const to = {
      ArrowLeft: shownPly() - 1,
      ArrowRight: shownPly() + 1,
      Home: 0,
      End: Infinity,
    }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    view(to);
  });
  $('api-key-form').onsubmit = event => {
    event.preventDefault();
    api.apiKey = $('api-key').value.trim();
    $('retry').click();
  };
  $('api-key').value = api.apiKey;
  if (loaded.wrong.length) {
    showProblem(t('address.wrong', { problems: loaded.wrong.join(' ') }), 'bad_address');
    return;
  }
  await newGame(loaded);
}

start();
