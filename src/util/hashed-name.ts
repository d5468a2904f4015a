/**
 * Whether a file name looks content-hashed (`settings.e889d204.js`, `chunk-ui-BfK3x9aZ.js`): a
 * run of 8 or more letters and digits, with a digit, between separators. A scanner's guesses
 * (`/static/js/main.js`, `/js/app.js`) have none.
 */
export function looksHashed(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1)
  for (const token of name.split(/[.\-_~]/)) {
    if (token.length >= 8 && /\d/.test(token) && /^[A-Za-z0-9]+$/.test(token)) return true
  }
  return false
}
