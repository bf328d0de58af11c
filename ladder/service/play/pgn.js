// The game as PGN, with the tags ladder/match/output/pgn.py writes for a match game (the seven
// standard ones, White being Red; then Game "Chinese Chess" and Format, as xqbase-style
// readers expect, Variant, FEN and SetUp; TimeControl as the PGN standard writes it:
// "300+3" in seconds, "-" for a game without a clock), and the moves in WXF (as the service wrote
// them, POST /v1/position's `notations`), in Chinese (炮二平五, Format "Chinese", as
// `ladder match --pgn-notation chinese` writes it) or in ICCS (H2-E2, ranks 0-9; drops A@E2).

// 'h3e3' -> 'H2-E2'; 'A@e3' -> 'A@E2'.
export function iccsMove(move) {
  const drop = /^([A-Z])@([a-i])(\d{1,2})$/.exec(move);
  if (drop) return `${drop[1]}@${drop[2].toUpperCase()}${Number(drop[3]) - 1}`;
  const step = /^([a-i])(\d{1,2})([a-i])(\d{1,2})$/.exec(move);
  if (!step) throw new Error(`not a move: ${move}`);
  const point = (file, rank) => `${file.toUpperCase()}${Number(rank) - 1}`;
  return `${point(step[1], step[2])}-${point(step[3], step[4])}`;
}

const quote = value => `"${String(value).replaceAll('\\', '/').replaceAll('"', "'")}"`;

// The PGN text of a game: `moves` in the API's notation; `notation` 'iccs', or the one
// `written` is in ('wxf', 'chinese', 'chinese-traditional').
export function pgnText({
  variant,
  startFen,
  moves,
  written,
  notation,
  red,
  black,
  result,
  termination,
  timeControl,
  site,
  date,
  seed,
}) {
  const day = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]
    .map(n => String(n).padStart(2, '0'))
    .join('.');
  const tags = [
    ['Event', 'Mistboard ladder game'],
    ['Site', site],
    ['Date', day],
    ['Round', '-'],
    ['White', red],
    ['Black', black],
    ['Result', result],
    ['Game', 'Chinese Chess'],
    ['Format', { iccs: 'ICCS', wxf: 'WXF' }[notation] ?? 'Chinese'],
    ['Red', red],
    ['Variant', variant],
    ['FEN', startFen],
    ['SetUp', '1'],
    ['Termination', termination],
    ['TimeControl', timeControl],
    ['PlyCount', String(moves.length)],
    ['Seed', String(seed)],
  ];
  const shown = notation === 'iccs' ? moves.map(iccsMove) : written;
  const fields = startFen.split(' ');
  const blackFirst = fields[1] === 'b';
  let fullmove = Number(fields.at(-1)) || 1;
  const tokens = [];
  shown.forEach((move, i) => {
    const redMoves = i % 2 === 0 !== blackFirst;
    if (redMoves) tokens.push(`${fullmove}.`);
    else if (i === 0) tokens.push(`${fullmove}...`);
    tokens.push(move);
    if (!redMoves) fullmove += 1;
  });
  tokens.push(result);
  const lines = [];
  let line = '';
  for (const token of tokens) {
    if (line && line.length + 1 + token.length > 79) {
      lines.push(line);
      line = token;
    } else {
      line = line ? `${line} ${token}` : token;
    }
  }
  lines.push(line);
  return `${tags.map(([k, v]) => `[${k} ${quote(v)}]`).join('\n')}\n\n${lines.join('\n')}\n`;
}
