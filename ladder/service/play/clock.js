// The game clock: chosen before the game (none, 5+3, 10+5, 15+10: minutes, and seconds
// added after each move), or given in the address (?clock=0.1+0). Each side's time runs
// on its turn and the mover gets the increment after its move. The ladder's time is its
// move request's round trip: the page starts the ladder's clock as the request leaves
// and stops it when the answer comes, and the request carries what the ladder has left
// (POST /v1/move's `clock`, docs/service.md "Timed games"). A side whose time runs out
// loses (the site's rules: games end by timeout too).

export const CLOCK_CHOICES = ['none', '5+3', '10+5', '15+10'];
const CLOCK_FORMAT = /^(\d{1,3}(?:\.\d+)?)[+ ](\d{1,2}(?:\.\d+)?)$/;
const MAX_MINUTES = 180;

// "10+5" -> {text, initialMs, incrementMs}; "none" or '' -> null; anything else throws.
export function parseClock(text) {
  const value = (text ?? '').trim();
  if (value === '' || value === 'none') return null;
  const m = CLOCK_FORMAT.exec(value);
  const minutes = m ? Number(m[1]) : NaN;
  if (!m || !(minutes > 0) || minutes > MAX_MINUTES) throw new RangeError(value);
  return {
    text: `${m[1]}+${m[2]}`,
    initialMs: Math.round(minutes * 60_000),
    incrementMs: Math.round(Number(m[2]) * 1000),
  };
}

// 83_400 -> "1:23"; under 10 s with tenths: "0:07.4".
export function clockText(ms) {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  const s = Math.floor(tenths / 10);
  const text = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  return s < 10 ? `${text}.${tenths % 10}` : text;
}

export class GameClock {
  // control: parseClock's answer; onFlag(side): that side's time ran out.
  constructor(control, onFlag) {
    this.control = control;
    this.onFlag = onFlag;
    this.left = { red: control.initialMs, black: control.initialMs };
    this.running = null;
    this.since = 0;
    this.timer = null;
  }

  remaining(side) {
    const ms = this.left[side] - (this.running === side ? performance.now() - this.since : 0);
    return Math.max(0, ms);
  }

  // `side`'s time runs (from now).
  start(side) {
    if (this.running === side) return;
    this.pause();
    this.running = side;
    this.since = performance.now();
    this.watch();
  }

  // The flag falls when the running side's time is gone: checked when it is due.
  watch() {
    clearTimeout(this.timer);
    const side = this.running;
    if (!side) return;
    this.timer = setTimeout(() => {
      if (this.running !== side) return;
      if (this.remaining(side) > 0) {
        this.watch();
        return;
      }
      this.pause();
      this.onFlag(side);
    }, this.remaining(side) + 1);
  }

  pause() {
    clearTimeout(this.timer);
    if (this.running) this.left[this.running] = this.remaining(this.running);
    this.running = null;
  }

  // `side` has moved: its time stops, and it gets the increment.
  moved(side) {
    if (this.running === side) this.pause();
    this.left[side] += this.control.incrementMs;
  }

  stop() {
    this.pause();
  }

  // What a reload needs: the times left, and whose was running (its time runs on
  // while the page reloads).
  snapshot() {
    return {
      red: this.remaining('red'),
      black: this.remaining('black'),
      running: this.running,
      at: Date.now(),
    };
  }

  restore(saved) {
    this.left = { red: saved.red, black: saved.black };
    if (saved.running) this.left[saved.running] -= Math.max(0, Date.now() - saved.at);
  }
}
