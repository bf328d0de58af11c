// The notation the page writes moves in (the switch by the move list): WXF (C2=5),
// Chinese (炮二平五, in the characters of the page's language: 繁體 for zh-Hant, else 简体)
// or the coordinates the API speaks (h3e3). The service writes them (the `notations` of
// /v1/position and the analysis lines: docs/service.md); the page asks for all of them,
// so a switch redraws at once. Chinese is the default in Chinese, WXF otherwise.

import { language } from './i18n.js';

// What the page asks the service for.
export const NOTATIONS = ['wxf', 'chinese', 'chinese-traditional'];
// What the switch offers.
export const CHOICES = ['wxf', 'chinese', 'coordinates'];
const STORAGE = 'mistboard-play-notation';

export function notationChoice() {
  const saved = localStorage.getItem(STORAGE);
  if (CHOICES.includes(saved)) return saved;
  return language().startsWith('zh') ? 'chinese' : 'wxf';
}

export function setNotationChoice(choice) {
  localStorage.setItem(STORAGE, choice);
}

// The service's name of the notation chosen (or 'coordinates').
export function notationName() {
  const choice = notationChoice();
  if (choice !== 'chinese') return choice;
  return language() === 'zh-Hant' ? 'chinese-traditional' : 'chinese';
}

// `moves` as written in the chosen notation, from an answer's `notations` (the moves
// themselves where it has none).
export function written(notations, moves) {
  const name = notationName();
  if (name === 'coordinates') return moves;
  return notations?.[name] ?? moves;
}

// An analysis line's `key` (move, best or pv) in the chosen notation.
export function lineText(line, key) {
  const name = notationName();
  if (name === 'coordinates') return line[key];
  return line.notations?.[name]?.[key] ?? line[key];
}
