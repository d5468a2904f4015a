import http from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {HttpClient} from '../../../src/probe/http-client'

/*
 * A kept-alive socket the server closes just as the next request goes out on it (an idle timeout
 * racing the client) gives ECONNRESET with nothing answered: the client sends the GET again on a
 * new socket, as browsers do. Here the server resets every socket at its second request, so the
 * race happens on every reuse, on loopback.
 */
describe('HttpClient on a kept-alive socket closed under it', () => {
  let server: http.Server
  let base: string
  const served = new WeakMap<Socket, number>()
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1
      served.set(req.socket, n)
      if (n > 1) return void req.socket.destroy()
      res.end('ok')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('sends the GET again on a new socket, and reports a reset of a new socket as the error it is', async () => {
    const client = new HttpClient({userAgent: 'test', timeoutMs: 5000, maxSockets: 1})
    try {
      for (let i = 0; i < 4; i++) expect(await client.get(base)).toMatchObject({status: 200, bytes: 2})
    } finally {
      client.close()
    }
    // A socket reset at its first request was not reused: no second try.
    const fresh = http.createServer((req) => req.socket.destroy())
    await new Promise<void>((resolve) => fresh.listen(0, '127.0.0.1', resolve))
    const once = new HttpClient({userAgent: 'test', timeoutMs: 5000, maxSockets: 1})
    try {
      const r = await once.get(`http://127.0.0.1:${(fresh.address() as AddressInfo).port}/`)
      expect(r.status).toBeUndefined()
      expect(r.error).toBe('ECONNRESET')
    } finally {
      once.close()
      await new Promise((resolve) => fresh.close(resolve))
    }
  })
})
