/**
 * Bounded work on hostile text (issue 16): the HTML converter, Date comments and Content-Type
 * parameters are linear on the inputs that made the old regexes quadratic (runs of `<`, `<!--`,
 * `(`, unclosed `boundary="`), and the connector bodies (main thread) go through the same
 * converter.
 */
import { describe, expect, it } from 'vitest';
import { cpuMsOf, growthRatio } from '../test-support/complexity.js';
import { htmlToText, plainIsHtml } from './html.js';
import { parseMailDate, withoutComments } from './parse.js';
import { headerParam } from './headers.js';
import { htmlToText as connectorHtmlToText } from '../connectors/text.js';

const HTML_BAIT: Array<[string, (n: number) => string]> = [
  ['a run of `<`', (n) => '<'.repeat(n)],
  ['`<a` repeated (tags never closed)', (n) => '<a'.repeat(n / 2)],
  ['`<!--` repeated, never closed', (n) => '<!--'.repeat(n / 4)],
  ['`<script>` repeated, never closed', (n) => '<script>'.repeat(n / 8)],
  ['`<style><title><head>` repeated', (n) => '<style><title><head>'.repeat(n / 20)],
  ['`</script` without `>`', (n) => `<script>${'</script'.repeat(n / 8)}`],
  ['nested blockquotes then lines', (n) => `${'<blockquote>'.repeat(n / 24)}${'<br>x'.repeat(n / 10)}`],
];

describe('htmlToText is linear', () => {
  it.each(HTML_BAIT)('%s: 4× the input takes < 10× the time', (_name, make) => {
    expect(growthRatio(make, htmlToText, 100_000)).toBeLessThan(10);
  });

  it.each(HTML_BAIT)('%s: 2 MB (the cap) converts within 2 s of CPU', async (_name, make) => {
    const input = make(2_000_000);
    expect(await cpuMsOf(() => htmlToText(input))).toBeLessThan(2_000);
  });

  it('keeps what the regex version did: text, blocks, entities, quotes; a `<` without `>` is text', () => {
    expect(htmlToText('<style>x{}</style><script>alert(1)</script><p>a&nbsp;&lt;b&gt; &#233;&#x263A;</p><div>c<br>d</div>')).toBe('a <b> é☺\n\nc\nd');
    expect(htmlToText('<HTML><HEAD><TITLE>t</TITLE></HEAD><BODY>Hi <B>there</B><!-- x > y --><ul><li>one<li>two</ul></BODY>')).toBe('Hi there\n\n* one\n* two');
    expect(htmlToText('a<td>1</td><td>2</td>b')).toBe('a1 2 b');
    expect(htmlToText('1 < 2 and <<<')).toBe('1 < 2 and <<<');
    expect(htmlToText('<p>a</p><script>never closed<p>b</p>')).toBe('a\nnever closed\nb');
    expect(htmlToText('<p>a</p><!-- never closed <p>b</p>')).toBe('a\nb');
  });

  it('tells an HTML page sent as text/plain in linear time, reading only its first 20,000 characters', () => {
    expect(growthRatio((n) => `<p ${'a'.repeat(490)}`.repeat(n / 493), plainIsHtml, 100_000)).toBeLessThan(10);
    expect(growthRatio((n) => '<a'.repeat(n / 2), plainIsHtml, 100_000)).toBeLessThan(10);
    expect(plainIsHtml(`${'word '.repeat(10_000)}${'<p>x</p><br><td>y</td>'.repeat(10)}`)).toBe(false);
    expect(plainIsHtml('<p>x</p><br><td>y</td>'.repeat(3))).toBe(true);
  });

  it('caps the quote prefix: 5,000 nested blockquotes give lines of at most ten `> `', () => {
    const text = htmlToText(`${'<blockquote>'.repeat(5_000)}deep<br>deeper`);
    expect(text.split('\n')).toEqual([`${'> '.repeat(10)}deep`, `${'> '.repeat(10)}deeper`]);
  });

  it('connector bodies (HubSpot/Intercom, main thread) are linear and capped too', async () => {
    expect(growthRatio((n) => '<'.repeat(n), connectorHtmlToText, 100_000)).toBeLessThan(10);
    expect(growthRatio((n) => '<!--'.repeat(n / 4), connectorHtmlToText, 100_000)).toBeLessThan(10);
    const huge = `<p>hi</p>${'<'.repeat(20_000_000)}`;
    expect(await cpuMsOf(() => expect(connectorHtmlToText(huge).length).toBeLessThanOrEqual(2_000_000))).toBeLessThan(2_000);
    expect(connectorHtmlToText('<p>Hello&nbsp;<b>Ana</b></p><p>Thanks</p>')).toBe('Hello Ana\n\nThanks');
  });
});

describe('Date comments and header parameters are linear', () => {
  it('withoutComments drops nested and unclosed comments in one pass', () => {
    expect(withoutComments('Mon, 14 May 2001 16:39:00 -0700 (PDT)')).toBe('Mon, 14 May 2001 16:39:00 -0700  ');
    expect(withoutComments('a (b (c) d) e')).toBe('a   e');
    expect(withoutComments('a (never closed')).toBe('a  ');
    expect(withoutComments('a (x\\) still) b')).toBe('a   b');
  });

  it.each([
    ['a run of `(`', (n: number) => '('.repeat(n)],
    ['`(x` repeated', (n: number) => '(x'.repeat(n / 2)],
    ['deep nesting', (n: number) => `${'('.repeat(n / 2)}${')'.repeat(n / 2)}`],
  ])('withoutComments on %s: 4× the input takes < 10× the time', (_name, make) => {
    expect(growthRatio(make, withoutComments, 200_000)).toBeLessThan(10);
  });

  it('parseMailDate reads the usual dates and gives up quickly on a megabyte of `(`', async () => {
    expect(parseMailDate('Mon, 14 May 2001 16:39:00 -0700 (PDT)')).toBe('2001-05-14T23:39:00.000Z');
    expect(parseMailDate('Mon, 14 May 2001 16:39:00 (a (nested) comment) +0000')).toBe('2001-05-14T16:39:00.000Z');
    const cpu = await cpuMsOf(() => {
      expect(parseMailDate(`Mon, 14 May 2001 16:39:00 +0000 ${'('.repeat(1_000_000)}`)).toBe('2001-05-14T16:39:00.000Z');
      expect(parseMailDate('('.repeat(1_000_000))).toBeUndefined();
    });
    expect(cpu).toBeLessThan(500);
  });

  it('headerParam reads quoted, bare and absent parameters', () => {
    expect(headerParam('multipart/mixed; boundary="a;b"; charset=x', 'boundary')).toBe('a;b');
    expect(headerParam('multipart/mixed; Boundary = abc ; x=1', 'boundary')).toBe('abc');
    expect(headerParam('text/plain; name="x;boundary=no"; charset=utf-8', 'boundary')).toBeUndefined();
    expect(headerParam('text/plain; name="x;boundary=no"; charset=utf-8', 'charset')).toBe('utf-8');
    expect(headerParam('text/plain', 'boundary')).toBeUndefined();
  });

  it.each([
    ['`boundary="` repeated, never closed', (n: number) => `multipart/mixed; ${'boundary="'.repeat(n / 10)}`],
    ['`; boundary="; ` repeated', (n: number) => `multipart/mixed${'; boundary="'.repeat(n / 12)}`],
    ['a run of `;`', (n: number) => `multipart/mixed${';'.repeat(n)}`],
  ])('headerParam on %s: 4× the input takes < 10× the time', (_name, make) => {
    expect(growthRatio(make, (v: string) => headerParam(v, 'boundary'), 100_000)).toBeLessThan(10);
  });
});
