// The board: chessgroundx (vendor/chessgroundx, pychess.org's board) on a 9 x 10 xiangqi
// grid, with hands for crazyhouse-xiangqi, blast marks for atomic-xiangqi and a keyboard
// cursor. It knows notation only (points, moves, FEN placement), never the rules: what
// may move where is the legal move list the service gave.

import { Chessground } from './vendor/chessgroundx/chessground.js';
import { read as readFen } from './vendor/chessgroundx/fen.js';
import { Notation } from './vendor/chessgroundx/types.js';
import { t } from './i18n.js';

const FILES = 'abcdefghi';
const DIMENSIONS = { width: 9, height: 10 };

// chessgroundx roles are FEN letters: k general, a advisor, b elephant, n horse,
// r chariot, c cannon, p soldier (named in the catalogues' `piece.*`).
// What a crazyhouse-xiangqi hand can hold (captured pieces and the starting A, E).
const HAND_ROLES = ['r-piece', 'n-piece', 'c-piece', 'a-piece', 'b-piece', 'p-piece'];

// chessgroundx calls the sides white and black; the API calls them red and black.
export const cgColour = side => (side === 'red' ? 'white' : 'black');
export const sideOf = colour => (colour === 'white' ? 'red' : 'black');

// Points: the API writes e10, chessgroundx names the tenth rank ':' (e:).
export const keyOf = point => point[0] + (point.slice(1) === '10' ? ':' : point.slice(1));
export const pointOf = key => key[0] + (key[1] === ':' ? '10' : key[1]);

// 'h3e3' -> {from: 'h3', to: 'e3'}; 'A@e3' -> {drop: 'A', to: 'e3'} (API notation).
export function parseMove(move) {
  const drop = /^([A-Z])@([a-i]\d{1,2})$/.exec(move);
  if (drop) return { drop: drop[1], to: drop[2] };
  const step = /^([a-i]\d{1,2})([a-i]\d{1,2})$/.exec(move);
  return step ? { from: step[1], to: step[2] } : null;
}

// The legal moves as chessgroundx destinations: {'h3' -> ['e3', ...], 'A@' -> [...]}.
export function destsOf(legalMoves) {
  const dests = new Map();
  for (const move of legalMoves) {
    const m = parseMove(move);
    if (!m) continue;
    const orig = m.drop ? `${m.drop}@` : keyOf(m.from);
    if (!dests.has(orig)) dests.set(orig, []);
    dests.get(orig).push(keyOf(m.to));
  }
  return dests;
}

// chessgroundx's lastMove for a move: [from, to], or ['A@', to] for a drop.
export function lastMoveOf(move) {
  const m = move && parseMove(move);
  if (!m) return undefined;
  return [m.drop ? `${m.drop}@` : keyOf(m.from), keyOf(m.to)];
}

// The points a move emptied other than the one it left: what an atomic-xiangqi blast
// removed (the capturer, its target and the bystanders), read from the FENs before and
// after the move that the service gave. Empty for any other move.
export function removedBy(fenBefore, fenAfter, move) {
  const m = parseMove(move);
  if (!m) return [];
  const before = readFen(fenBefore, DIMENSIONS).pieces;
  const after = readFen(fenAfter, DIMENSIONS).pieces;
  const from = m.from && keyOf(m.from);
  return [...before.keys()]
    .filter(k => k !== from && !after.has(k))
    .map(pointOf)
    .sort();
}

export function pieceName(piece) {
  return t(`piece.${sideOf(piece.color)}.${piece.role}`);
}

export class Board {
  // el: the board element; pockets: {top, bottom} elements for the hands (or null);
  // onMove(move): the player made `move` (API notation) on the board; announce(text):
  // say something to screen-reader users.
  constructor(el, pockets, { fen, orientation, onMove, announce }) {
    this.el = el;
    this.orientation = orientation;
    this.onMove = onMove;
    this.announce = announce;
    this.dests = new Map();
    this.cursor = orientation === 'red' ? 'e1' : 'e10';
    this.marks = document.createElement('div');
    this.marks.className = 'marks';
    this.marks.setAttribute('aria-hidden', 'true');
    this.cursorEl = document.createElement('div');
    this.cursorEl.className = 'kb-cursor';
    this.marks.append(this.cursorEl);
    const hands = pockets !== null;
    const config = {
      fen,
      orientation: cgColour(orientation),
      turnColor: 'white',
      dimensions: DIMENSIONS,
      notation: Notation.XIANGQI_ARBNUM,
      kingRoles: ['k-piece'],
      coordinates: true,
      highlight: { lastMove: true, check: true },
      animation: {
        enabled: !matchMedia('(prefers-reduced-motion: reduce)').matches,
        duration: 180,
      },
      movable: {
        free: false,
        color: undefined,
        showDests: true,
        events: {
          after: (orig, dest) => this.onMove(pointOf(orig) + pointOf(dest)),
          afterNewPiece: (piece, dest) =>
            this.onMove(`${piece.role[0].toUpperCase()}@${pointOf(dest)}`),
        },
      },
      premovable: { enabled: false },
      draggable: { enabled: true, showGhost: true },
      selectable: { enabled: true },
      drawable: { enabled: false, visible: true },
      events: { insert: elements => elements.container.append(this.marks) },
    };
    if (hands) config.pocketRoles = { white: HAND_ROLES, black: HAND_ROLES };
    el.replaceChildren();
    for (const p of [pockets?.top, pockets?.bottom]) p?.replaceChildren();
    this.ground = Chessground(el, config, pockets?.top, pockets?.bottom);
    this.pockets = pockets;
    // chessgroundx remembers the board's place on the screen and forgets it on scroll
    // and resize events; a scroll not yet reported, or the layout moving, would map a
    // tap to the wrong point. So it measures again at the start of every touch or click.
    this.freshBounds = () => this.ground.state.dom.bounds.clear();
    for (const type of ['mousedown', 'touchstart']) {
      document.addEventListener(type, this.freshBounds, { capture: true, passive: true });
    }
    this.placeCursor();
    this.bindKeys();
    if (hands) this.bindPockets();
  }

  destroy() {
    for (const type of ['mousedown', 'touchstart']) {
      document.removeEventListener(type, this.freshBounds, { capture: true });
    }
    this.ground.destroy();
    this.el.replaceChildren();
    this.el.onkeydown = null;
  }

  // Show a position: its FEN, whose turn, the last move, check, and (when the player is
  // to move) the legal moves the player may make.
  show({ fen, turn, lastMove, check, dests, movable }) {
    this.dests = movable ? dests : new Map();
    this.ground.set({
      fen,
      turnColor: cgColour(turn),
      lastMove: lastMoveOf(lastMove),
      check: check ? cgColour(turn) : false,
      movable: { color: movable ? cgColour(turn) : undefined, dests: this.dests },
    });
    if (!movable) this.ground.selectSquare(null);
    this.clearBlast();
    this.labelPockets();
  }

  // Arrows over the board: [{move, brush}] (a drop: a circle on its point); chessgroundx
  // draws them (its auto shapes). The moves are kept in data-arrows for tests and tools.
  arrows(list) {
    const shapes = [];
    for (const { move, brush } of list) {
      const m = parseMove(move);
      if (!m) continue;
      shapes.push(
        m.drop ? { orig: keyOf(m.to), brush } : { orig: keyOf(m.from), dest: keyOf(m.to), brush },
      );
    }
    this.ground.setAutoShapes(shapes);
    this.el.dataset.arrows = list.map(a => a.move).join(' ');
  }

  // Lock the board (while a move is on its way to the service).
  lock() {
    this.dests = new Map();
    this.ground.set({ movable: { color: undefined, dests: new Map() } });
  }

  // Show what a blast removed: a mark on each point until the next move; with `animate`
  // (a move just played, not one shown again after an undo) chessgroundx's explosion
  // and the marks' burst first.
  explode(points, animate) {
    if (animate) this.ground.explode(points.map(keyOf));
    for (const point of points) {
      const mark = document.createElement('div');
      mark.className = animate ? 'blast burst' : 'blast';
      mark.dataset.point = point;
      this.place(mark, point);
      this.marks.append(mark);
    }
  }

  clearBlast() {
    for (const mark of this.marks.querySelectorAll('.blast')) mark.remove();
  }

  // Position an overlay element on a point, in percent of the board.
  place(node, point) {
    const f = FILES.indexOf(point[0]);
    const r = Number(point.slice(1)) - 1;
    const red = this.orientation === 'red';
    node.style.left = `${((red ? f : 8 - f) * 100) / 9}%`;
    node.style.top = `${((red ? 9 - r : r) * 100) / 10}%`;
  }

  pieceAt(point) {
    return this.ground.state.boardState.pieces.get(keyOf(point));
  }

  // Whether `point` is a legal destination of the piece picked up (none: false).
  isDest(point) {
    const selected = this.ground.state.selectable.selected;
    if (!selected) return false;
    const orig = typeof selected === 'string' ? selected : `${selected.role[0].toUpperCase()}@`;
    return (this.dests.get(orig) || []).includes(keyOf(point));
  }

  describe(point) {
    const piece = this.pieceAt(point);
    const text = t('board.point', { point, what: piece ? pieceName(piece) : t('board.empty') });
    return this.isDest(point) ? t('board.dest', { text }) : text;
  }

  placeCursor() {
    this.place(this.cursorEl, this.cursor);
    this.el.dataset.cursor = this.cursor;
  }

  // Keyboard: arrows move a cursor over the points (as seen on the screen), Enter or
  // Space does what a tap on that point does, Escape drops the selection.
  bindKeys() {
    this.el.tabIndex = 0;
    this.el.setAttribute('role', 'application');
    this.el.setAttribute('aria-label', t('board.label'));
    this.el.onkeydown = event => {
      const step = {
        ArrowUp: [0, 1],
        ArrowDown: [0, -1],
        ArrowLeft: [-1, 0],
        ArrowRight: [1, 0],
      }[event.key];
      if (step) {
        const sign = this.orientation === 'red' ? 1 : -1;
        const f = FILES.indexOf(this.cursor[0]) + step[0] * sign;
        const r = Number(this.cursor.slice(1)) + step[1] * sign;
        if (f >= 0 && f < 9 && r >= 1 && r <= 10) {
          this.cursor = FILES[f] + r;
          this.placeCursor();
          this.announce(this.describe(this.cursor));
        }
      } else if (event.key === 'Enter' || event.key === ' ') {
        this.tap(this.cursor);
      } else if (event.key === 'Escape') {
        this.ground.selectSquare(null);
        this.announce(t('board.cancelled'));
      } else {
        return;
      }
      event.preventDefault();
    };
  }

  // What a tap on `point` does: select a piece there, or move the selected one there.
  tap(point) {
    const key = keyOf(point);
    const before = this.ground.state.selectable.selected;
    const wasDest = this.isDest(point);
    this.ground.selectSquare(key);
    const after = this.ground.state.selectable.selected;
    if (after === key && before !== key) {
      const n = (this.dests.get(key) || []).length;
      this.announce(t('board.picked_up', { what: this.describe(point), n }));
    } else if (!after && before && !wasDest) {
      // (a move is announced when the service has judged it)
      this.announce(before === key ? t('board.put_back') : t('board.not_dest', { point }));
    }
  }

  // Hands: each piece in the player's hand is a button (Enter/Space picks it up for a
  // drop; the cursor then goes to the board), besides chessgroundx's tap and drag.
  bindPockets() {
    for (const pocket of [this.pockets.top, this.pockets.bottom]) {
      for (const sq of pocket.querySelectorAll('square')) {
        const piece = sq.firstElementChild;
        sq.setAttribute('role', 'button');
        sq.onkeydown = event => {
          if (event.key !== 'Enter' && event.key !== ' ') return;
          event.preventDefault();
          const p = { role: piece.dataset.role, color: piece.dataset.color };
          this.ground.selectPocket(p);
          const dests = this.dests.get(`${p.role[0].toUpperCase()}@`) || [];
          if (this.ground.state.selectable.selected && dests.length) {
            this.cursor = pointOf(dests[0]);
            this.placeCursor();
            this.el.focus();
            this.announce(
              t('board.from_hand', { piece: pieceName(p), n: dests.length, point: this.cursor }),
            );
          } else {
            this.announce(t('board.cannot_drop', { piece: pieceName(p) }));
          }
        };
      }
    }
  }

  // The board's words again, in the page's language now.
  translate() {
    this.el.setAttribute('aria-label', t('board.label'));
    this.labelPockets();
  }

  // Label the hands' pieces with their counts; only the side to move's are focusable.
  labelPockets() {
    if (!this.pockets) return;
    const state = this.ground.state;
    const movable = state.movable.color;
    for (const pocket of [this.pockets.top, this.pockets.bottom]) {
      for (const sq of pocket.querySelectorAll('square')) {
        const piece = sq.firstElementChild;
        const p = { role: piece.dataset.role, color: piece.dataset.color };
        const n = state.boardState.pockets?.[p.color]?.get(p.role) ?? 0;
        sq.setAttribute('aria-label', t('board.in_hand', { piece: pieceName(p), n }));
        sq.tabIndex = movable === p.color && n > 0 ? 0 : -1;
      }
    }
  }
}
