// The page's languages: every string the page shows is in one catalogue per language,
// static/lang/<code>.json (a BCP 47 tag: en, zh-Hans, zh-Hant). The server lists the
// catalogues it has in the page (<script id="languages">, play_page.py), so adding a
// language is adding a catalogue. English is the fallback for a key a catalogue lacks.
//
// t(key, vars) is a string with its {name} placeholders filled; a key with a count has
// a `key.one` form for 1 (English's singular) beside `key`. In the HTML, data-i18n="key"
// sets an element's text and data-i18n-attr="attr=key;attr=key" its attributes.

const STORAGE = 'mistboard-play-language';
const FALLBACK = 'en';

// [{code, name}] in the order the switch offers them.
export const LANGUAGES = JSON.parse(document.getElementById('languages').textContent);

const catalogues = {};
let current = FALLBACK;

export const language = () => current;

async function load(code) {
  if (catalogues[code]) return;
  const response = await fetch(new URL(`static/lang/${code}.json`, document.baseURI));
  if (!response.ok) throw new Error(`catalogue ${code}: ${response.status}`);
  catalogues[code] = await response.json();
}

// The language to start in: the one chosen on this browser before, else the first of the
// browser's languages that a catalogue speaks (by language and script: zh-TW and zh-HK
// read 繁體, zh-CN and zh-SG 简体), else English.
export function preferred() {
  const saved = localStorage.getItem(STORAGE);
  if (LANGUAGES.some(l => l.code === saved)) return saved;
  const key = tag => {
    try {
      const l = new Intl.Locale(tag).maximize();
      return `${l.language}-${l.script}`;
    } catch {
      return tag.toLowerCase();
    }
  };
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    const match = LANGUAGES.find(l => key(l.code) === key(tag));
    if (match) return match.code;
  }
  return FALLBACK;
}

// Load and use a language (`remember`: the player chose it with the switch).
export async function setLanguage(code, remember = false) {
  await Promise.all([load(FALLBACK), load(code)]);
  current = code;
  if (remember) localStorage.setItem(STORAGE, code);
  document.documentElement.lang = code;
  translate(document);
}

export function t(key, vars = {}) {
  const n = vars.n;
  const one = n === 1 ? `${key}.one` : null;
  const text =
    (one && (catalogues[current]?.[one] ?? catalogues[FALLBACK]?.[one])) ??
    catalogues[current]?.[key] ??
    catalogues[FALLBACK]?.[key];
  if (text === undefined) throw new Error(`no string for ${key}`);
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

// The strings of the page's own HTML.
export function translate(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split('=');
      el.setAttribute(attr, t(key));
    }
  }
}

// A number as the language writes it (1,000 / 1,000).
export const number = n => n.toLocaleString(current);
