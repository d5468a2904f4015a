import {stripPort} from '../../../src/util/host-port'

describe('stripPort: the one host:port -> host of every log format and the analysis', () => {
  it.each([
    ['host and port', 'app.example.com:8443', 'app.example.com'],
    ['bare host', 'app.example.com', 'app.example.com'],
    ['empty', '', ''],
    ['trailing colon (an empty port)', 'app.example.com:', 'app.example.com'],
    ['IPv4 and port', '10.0.0.5:8080', '10.0.0.5'],
    ['bare IPv4', '10.0.0.5', '10.0.0.5'],
    ['bracketed IPv6 and port', '[2001:db8::1]:8443', '2001:db8::1'],
    ['bracketed IPv6 without a port', '[2001:db8::1]', '2001:db8::1'],
    ['bracketed IPv6 and an empty port', '[::1]:', '::1'],
    ['bare IPv6 (no port to strip)', '2001:db8::1', '2001:db8::1'],
    ['bare IPv6 loopback', '::1', '::1'],
    ['bare IPv4-mapped IPv6', '::ffff:10.0.0.5', '::ffff:10.0.0.5'],
    ['a port that is no number: kept whole', 'app.example.com:https', 'app.example.com:https'],
    ['no host before the port: kept whole', ':8080', ':8080'],
    ['unclosed bracket: kept whole', '[2001:db8::1', '[2001:db8::1'],
    ['empty brackets: kept whole', '[]:80', '[]:80'],
    ['junk after the bracket: kept whole', '[::1]x', '[::1]x'],
    ['letters in the bracketed port: kept whole', '[::1]:8a', '[::1]:8a'],
  ])('%s: %j -> %j', (_name, input, host) => {
    expect(stripPort(input)).toBe(host)
  })
})
