/**
 * The help fast path's ejs (dist/help/render.js, scripts/help-renderer.js): oclif's help renders
 * every string through ejs.render, which the fast path answers without ejs's compiler for a text with
 * no delimiter and with one compile per text otherwise. Both must give what ejs itself gives, for any
 * text: checked against the ejs installed for oclif (the copy the bundle holds), on texts made of
 * ejs's delimiters' characters and the ones a compiled template escapes.
 */
import {join} from 'node:path'
import fc from 'fast-check'
import {ROOT} from '../../helpers/cli'

type Render = (template: string, data: object) => string
// eslint-disable-next-line @typescript-eslint/no-require-imports
const bundled = (require(join(ROOT, 'dist', 'help', 'render.js')) as {ejs: {render: Render}}).ejs
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ejs = require(require.resolve('ejs', {paths: [require.resolve('@oclif/core')]})) as {render: Render}

/** What oclif's help gives ejs as data: the help formatter, with config and command. */
const helper = {config: {bin: 'skewscan'}, command: {id: 'analyze'}, opts: {maxWidth: 80}, indentSpacing: 2}
const text = fc.string({unit: fc.constantFrom('<', '%', '>', '=', '-', '_', '#', ' ', '\n', '\r', '\t', '\\', '"', "'", '`', '$', '{', '}', 'a', 'é', '→', '<%= config.bin %>', '<%= command.id %>'), maxLength: 40})

function outcome(render: Render, template: string): {text: string} | {error: true} {
  try {
    return {text: render(template, helper)}
  } catch {
    return {error: true}
  }
}

describe("the help fast path's ejs.render", () => {
  it('gives what ejs gives, twice in a row (the second from its compiled texts), for any text', () => {
    fc.assert(fc.property(text, (template) => {
      const expected = outcome(ejs.render, template)
      expect(outcome(bundled.render, template)).toEqual(expected)
      expect(outcome(bundled.render, template)).toEqual(expected)
    }), {numRuns: 2000})
  })

  it('a text with neither `<%` nor `%>` renders as itself in ejs (what its shortcut relies on)', () => {
    fc.assert(fc.property(text.filter((t) => !t.includes('<%') && !t.includes('%>')), (template) => {
      expect(ejs.render(template, helper)).toBe(template)
    }), {numRuns: 2000})
    // A lone `%>` is dropped by ejs: the shortcut must not take it.
    expect(ejs.render('50%> done', helper)).not.toBe('50%> done')
    expect(bundled.render('50%> done', helper)).toBe(ejs.render('50%> done', helper))
    expect(bundled.render('$ <%= config.bin %> <%= command.id %>', helper)).toBe('$ skewscan analyze')
  })
})
