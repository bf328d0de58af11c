// The ladder's HTTP API as the page uses it (docs/service.md). Every failure becomes an
// ApiError with the service's own code and message, and `retryAfter` (seconds) when the
// service said when to come back (503 busy, 429 rate limit).

import { NOTATIONS } from './notation.js';

const KEY_STORAGE = 'mistboard-ladder-api-key';

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.status = status; // 0: the service could not be reached
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

export class LadderApi {
  constructor(base = document.baseURI) {
    this.base = new URL('../', base); // the page is /play/; the API is /v1/...
  }

  get apiKey() {
    return localStorage.getItem(KEY_STORAGE) || '';
  }

  set apiKey(key) {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  }

  async fetch(method, path, body, signal, accept = 'application/json', extra = {}) {
    const headers = { accept, ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    try {
      return await fetch(new URL(path, this.base), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, 'unreachable', `cannot reach the ladder service (${err.message})`);
    }
  }

  async request(method, path, body, signal) {
    const response = await this.fetch(method, path, body, signal);
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (response.ok && data !== null) return data;
    throw errorOf(response, data);
  }

  // POST /v1/analysis: its NDJSON lines (start, ply..., summary or error), each given to
  // onLine as it arrives.
  // `headers`: a resumed analysis pins the engine build of its start line.
  async analysis(body, onLine, signal, headers = {}) {
    const response = await this.fetch(
      'POST',
      'v1/analysis',
      body,
      signal,
      'application/x-ndjson',
      headers,
    );
    if (!response.ok) {
      let data = null;
      try {
        data = await response.json();
      } catch {
        data = null;
      }
      throw errorOf(response, data);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, end).trim();
          buffer = buffer.slice(end + 1);
          if (line) onLine(JSON.parse(line));
        }
      }
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, 'unreachable', `the analysis stream broke off (${err.message})`);
    }
    if (buffer.trim()) onLine(JSON.parse(buffer));
  }

  variants(signal) {
    return this.request('GET', 'v1/variants', undefined, signal);
  }

  levels(signal) {
    return this.request('GET', 'v1/levels', undefined, signal);
  }

  // The rules checker's verdict: fen, turn, legal_moves, check, outcome, and the moves in
  // every notation the page writes (notation.js).
  position(variant, moves, signal) {
    return this.request('POST', 'v1/position', { variant, moves, notations: NOTATIONS }, signal);
  }

  // The ladder's move; `strength` is what the strength selector gives ({level: n});
  // `clock` ({remaining_ms, increment_ms}) for a move on the clock.
  move(variant, moves, strength, seed, signal, clock = null) {
    const body = { variant, moves, ...strength, seed };
    if (clock) body.clock = clock;
    return this.request('POST', 'v1/move', body, signal);
  }
}

// The ApiError of an error answer (the service's JSON envelope, or its status alone).
function errorOf(response, data) {
  const detail = (data && data.error) || {};
  const header = Number(response.headers.get('retry-after'));
  const retryAfter = detail.retry_after ?? (Number.isFinite(header) && header > 0 ? header : null);
  return new ApiError(
    response.status,
    detail.code || 'http_error',
    detail.message || `the service answered ${response.status} ${response.statusText}`,
    retryAfter,
  );
}
