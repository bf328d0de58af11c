// The evaluation graph, in plain SVG drawn here (no chart library, nothing from another
// host): Red's win chance after each ply (0 to 100 %, 50 % the middle line), Red's side
// shaded above the line and Black's below, as lichess draws its advantage chart; the
// inaccuracies, mistakes and blunders as marks; the shown ply as a vertical line. A
// click anywhere picks the nearest ply.

import { t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 150;
const PAD = 6;

// 'inaccuracy', 'mistake', 'blunder' in words.
export const judgementName = judgement => t(`judgement.${judgement}`);

function el(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// container: the element to draw in; plies: the game's length; values: ply -> Red's win
// chance after it (ply 0: before the first move), for the plies analysed so far;
// judged: ply -> judgement; shown: the ply on the board; onPick(ply).
export function drawGraph(container, { plies, values, judged, shown, onPick }) {
  const n = Math.max(plies, 1);
  const x = ply => PAD + ((WIDTH - 2 * PAD) * ply) / n;
  const y = chance => PAD + (HEIGHT - 2 * PAD) * (1 - chance);
  const svg = el('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-label': `Red's win chance after each ply, ${values.size - 1} of ${plies} plies analysed`,
  });
  svg.append(el('rect', { class: 'graph-bg', x: 0, y: 0, width: WIDTH, height: HEIGHT }));
  const known = [...values.keys()].sort((a, b) => a - b);
  if (known.length) {
    const line = known.map(p => `${x(p).toFixed(1)},${y(values.get(p)).toFixed(1)}`);
    const first = x(known[0]).toFixed(1);
    const last = x(known.at(-1)).toFixed(1);
    const mid = y(0.5).toFixed(1);
    // Red's advantage above the middle line, Black's below (clipped halves of one area)
    const area = `M${first},${mid} L${line.join(' L')} L${last},${mid} Z`;
    const defs = el('defs');
    for (const [id, top, height] of [
      ['graph-red-half', 0, HEIGHT / 2],
      ['graph-black-half', HEIGHT / 2, HEIGHT / 2],
    ]) {
      const clip = el('clipPath', { id });
      clip.append(el('rect', { x: 0, y: top, width: WIDTH, height }));
      defs.append(clip);
    }
    svg.append(defs);
    svg.append(el('path', { class: 'graph-red', d: area, 'clip-path': 'url(#graph-red-half)' }));
    svg.append(
      el('path', { class: 'graph-black', d: area, 'clip-path': 'url(#graph-black-half)' }),
    );
    svg.append(el('polyline', { class: 'graph-line', points: line.join(' ') }));
  }
  svg.append(el('line', { class: 'graph-mid', x1: 0, x2: WIDTH, y1: y(0.5), y2: y(0.5) }));
  if (shown != null) {
    svg.append(
      el('line', { class: 'graph-shown', x1: x(shown), x2: x(shown), y1: 0, y2: HEIGHT }),
    );
  }
  for (const [ply, judgement] of judged) {
    if (!values.has(ply)) continue;
    const mark = el('circle', {
      class: `graph-mark ${judgement}`,
      cx: x(ply),
      cy: y(values.get(ply)),
      r: judgement === 'blunder' ? 6 : 5,
      'data-ply': ply,
      'data-judgement': judgement,
    });
    const title = el('title');
    title.textContent = t('judgement.at_ply', { name: judgementName(judgement), ply });
    mark.append(title);
    svg.append(mark);
  }
  svg.onclick = event => {
    const box = svg.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * WIDTH;
    const ply = Math.round(((at - PAD) / (WIDTH - 2 * PAD)) * n);
    onPick(Math.max(0, Math.min(plies, ply)));
  };
  container.replaceChildren(svg);
}
