// The ladder's HTTP API as the page uses it (docs/service.md). Every failure becomes an
// ApiError with the service's own code and message, and `retryAfter` (seconds) when the
// service said when to come back (503 busy, 429 rate limit).

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

  async request(method, path, body, signal) {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let response;
    try {
      response = await fetch(new URL(path, this.base), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, 'unreachable', `cannot reach the ladder service (${err.message})`);
    }
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (response.ok && data !== null) return data;
    const detail = (data && data.error) || {};
    const header = Number(response.headers.get('retry-after'));
    const retryAfter =
      detail.retry_after ?? (Number.isFinite(header) && header > 0 ? header : null);
    throw new ApiError(
      response.status,
      detail.code || 'http_error',
      detail.message || `the service answered ${response.status} ${response.statusText}`,
      retryAfter,
    );
  }

  variants(signal) {
    return this.request('GET', 'v1/variants', undefined, signal);
  }

  levels(signal) {
    return this.request('GET', 'v1/levels', undefined, signal);
  }

  // The rules checker's verdict: fen, turn, legal_moves, check, outcome, and the moves in WXF.
  position(variant, moves, signal) {
    return this.request('POST', 'v1/position', { variant, moves, wxf: true }, signal);
  }

  // The ladder's move; `strength` is what the strength selector gives ({level: n}).
  move(variant, moves, strength, seed, signal) {
    return this.request('POST', 'v1/move', { variant, moves, ...strength, seed }, signal);
  }
}
