import {classifyAsset, type ResponseFacts, startsWithMarkup} from '../../../src/probe/classify'

const body = (s: string) => Buffer.from(s)
const r = (over: Partial<ResponseFacts>): ResponseFacts => ({status: 200, contentType: 'text/javascript', bytes: 5000, head: body('export const a = 1'), ...over})

describe('classifyAsset', () => {
  it.each<[string, Partial<ResponseFacts>, number | undefined, string, string | undefined]>([
    ['a real bundle', {}, 1832, 'ok', undefined],
    ['text/html content type', {contentType: 'text/html; charset=utf-8', head: body('x')}, 1832, 'html-for-asset', 'text/html'],
    ['TEXT/HTML in capitals', {contentType: ' TEXT/HTML'}, 1832, 'html-for-asset', 'text/html'],
    ['a body starting with <', {contentType: 'application/javascript', head: body('<!doctype html>')}, 1832, 'html-for-asset', 'starts with <'],
    ['< after a BOM and whitespace', {contentType: undefined, head: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body(' \r\n\t<html>')])}, undefined, 'html-for-asset', 'starts with <'],
    ['the page\'s own length', {contentType: 'application/octet-stream', bytes: 1832, head: body('x')}, 1832, 'html-for-asset', 'page length'],
    ['an empty body is not the page', {bytes: 0, head: body('')}, 0, 'ok', undefined],
    ['404', {status: 404, contentType: 'text/html'}, 1832, 'missing', 'HTTP 404'],
    ['410', {status: 410}, 1832, 'missing', 'HTTP 410'],
    ['403 is a 4xx too', {status: 403}, 1832, 'missing', 'HTTP 403'],
    ['502', {status: 502}, 1832, 'error', 'HTTP 502'],
    ['a redirect left unfollowed', {status: 301}, 1832, 'error', 'HTTP 301'],
    ['no response: timeout', {status: undefined, error: 'timeout', bytes: 0, head: body('')}, 1832, 'error', 'timeout'],
    ['no response: refused', {status: undefined, error: 'ECONNREFUSED', bytes: 0, head: body('')}, 1832, 'error', 'ECONNREFUSED'],
  ])('%s', (_name, over, pageBytes, outcome, reason) => {
    expect(classifyAsset(r(over), pageBytes)).toEqual(reason === undefined ? {outcome} : {outcome, reason})
  })

  it('startsWithMarkup reads past whitespace only', () => {
    expect(startsWithMarkup(body('   <'))).toBe(true)
    expect(startsWithMarkup(body('//<html>'))).toBe(false)
    expect(startsWithMarkup(body(''))).toBe(false)
    expect(startsWithMarkup(body('\u00a0<'))).toBe(false)
  })
})
