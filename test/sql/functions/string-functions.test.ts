/**
 * Flink's string, regular-expression, URL and encoding functions on edge cases (NULL, '',
 * non-ASCII text, out-of-range arguments), each case's expected value Flink 2.2's answer
 * (the differential suite checks the same functions over generated tables).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, hexOf, typeOf } from './evaluate.js';

describe('string functions', () => {
  it('give NULL for a NULL argument', () => {
    for (const sql of [
      'INITCAP(s)',
      "LPAD(s, 3, 'x')",
      'REPEAT(s, 2)',
      'REVERSE(s)',
      'LEFT(s, 1)',
      'RIGHT(s, 1)',
      "LOCATE('a', s)",
      'ASCII(s)',
      'CHR(n)',
      "SPLIT(s, ',')",
      "TRANSLATE(s, 'a', 'b')",
      'BTRIM(s)',
      "STARTSWITH(s, 'a')",
      "REGEXP(s, 'a')",
      "REGEXP_REPLACE(s, 'a', 'b')",
      'MD5(s)',
      'TO_BASE64(s)',
      'URL_ENCODE(s)',
      "PARSE_URL(s, 'HOST')",
    ])
      expect(evaluate(sql), sql).toBeNull();
  });

  it('INITCAP capitalizes ASCII words only', () => {
    expect(evaluate("INITCAP('hello wORLD foo-bar x1y')")).toBe('Hello World Foo-Bar X1y');
    expect(evaluate("INITCAP('ümlaut')")).toBe('üMlaut');
    expect(evaluate("INITCAP('')")).toBe('');
  });

  it('LPAD and RPAD cut, pad, and give NULL for a negative length or an empty pad', () => {
    expect(evaluate("LPAD('hi', 5, 'xy')")).toBe('xyxhi');
    expect(evaluate("RPAD('hi', 5, 'xy')")).toBe('hixyx');
    expect(evaluate("LPAD('hello', 2, 'x')")).toBe('he');
    expect(evaluate("LPAD('hi', -1, 'x')")).toBeNull();
    expect(evaluate("RPAD('hi', 3, '')")).toBeNull();
    expect(typeOf("LPAD('hi', 5, 'x')")).toBe('STRING');
  });

  it('LPAD has the asked length and keeps the string at its end (property)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 0, max: 40 }),
        fc.string({ minLength: 1 }),
        (s, n, p) => {
          const out = evaluate('LPAD(s, n, t)', { s, n, t: p }) as string;
          expect(out.length).toBe(n);
          if (n >= s.length) expect(out.endsWith(s)).toBe(true);
          else expect(out).toBe(s.slice(0, n));
        },
      ),
    );
  });

  it('REPEAT, REVERSE, LEFT and RIGHT', () => {
    expect(evaluate("REPEAT('ab', 3)")).toBe('ababab');
    expect(evaluate("REPEAT('ab', -1)")).toBe('');
    expect(evaluate("REVERSE('ümlaut')")).toBe('tualmü');
    expect(evaluate("LEFT('abc', 2)")).toBe('ab');
    expect(evaluate("LEFT('abc', -1)")).toBe('');
    expect(evaluate("RIGHT('abc', 2)")).toBe('bc');
    expect(evaluate("RIGHT('abc', 10)")).toBe('abc');
  });

  it('LOCATE, INSTR, ASCII, CHR and OVERLAY as Flink', () => {
    expect(evaluate("LOCATE('b', 'a,b,c')")).toBe(3);
    expect(evaluate("LOCATE('c', 'a,b,c', 2)")).toBe(5);
    expect(evaluate("LOCATE('a', 'a,b,c', -1)")).toBe(1);
    expect(evaluate("LOCATE('', '')")).toBe(1);
    expect(evaluate("INSTR('hello', 'l')")).toBe(3);
    expect(evaluate("ASCII('abc')")).toBe(97);
    expect(evaluate("ASCII('')")).toBe(0);
    // The first byte of ü in UTF-8 (0xC3), as a signed byte.
    expect(evaluate("ASCII('ümlaut')")).toBe(-61);
    expect(evaluate('CHR(65)')).toBe('A');
    expect(evaluate('CHR(321)')).toBe('A');
    expect(evaluate('CHR(-1)')).toBe('');
    expect(evaluate("OVERLAY('a,b,c' PLACING 'XY' FROM 2)")).toBe('aXY,c');
    expect(evaluate("OVERLAY('a,b,c' PLACING 'c' FROM 1 FOR 2)")).toBe('cb,c');
    expect(evaluate("OVERLAY('a,b,c' PLACING '#' FROM 10 FOR 1)")).toBe('a,b,c');
  });

  it('SPLIT, STR_TO_MAP, TRANSLATE, ELT, BTRIM, STARTSWITH, ENDSWITH', () => {
    expect(evaluate("SPLIT('a,b,,c,', ',')")).toEqual(['a', 'b', '', 'c', '']);
    expect(evaluate("SPLIT('abc', '')")).toEqual(['a', 'b', 'c']);
    expect(evaluate("SPLIT('', ',')")).toEqual([]);
    expect(evaluate("STR_TO_MAP('a=1,b=2,c')")).toEqual(
      new Map([
        ['a', '1'],
        ['b', '2'],
        ['c', null],
      ]),
    );
    expect(evaluate("STR_TO_MAP('x:1;y:2', ';', ':')")).toEqual(
      new Map([
        ['x', '1'],
        ['y', '2'],
      ]),
    );
    expect(evaluate("STR_TO_MAP('')")).toEqual(new Map());
    expect(evaluate("TRANSLATE('a,b,c', 'abc', 'xy')")).toBe('x,y,');
    expect(evaluate("ELT(2, 'a', 'b')")).toBe('b');
    expect(evaluate("ELT(3, 'a', 'b')")).toBeNull();
    expect(evaluate("BTRIM('  xax  ', ' x')")).toBe('a');
    expect(evaluate("LTRIM(' a,b ', ' a')")).toBe(',b ');
    expect(evaluate("RTRIM(' a,b ', ' b')")).toBe(' a,');
    expect(evaluate("LTRIM('  x ')")).toBe('x ');
    expect(evaluate("STARTSWITH('abc', '')")).toBe(true);
    expect(evaluate("ENDSWITH(X'0102', X'02')")).toBe(true);
  });

  it('count characters or UTF-16 units where Flink does', () => {
    expect(evaluate("LEFT('😀b', 1)")).toBe('😀');
    expect(evaluate("RIGHT('😀b', 2)")).toBe('😀b');
    expect(evaluate("LOCATE('b', '😀b')")).toBe(2);
    expect(evaluate("INSTR('😀b', 'b')")).toBe(2);
    expect(evaluate("LPAD('😀', 4, 'x')")).toBe('xx😀');
    expect(evaluate("REGEXP_INSTR('😀b', 'b')")).toBe(3);
    expect(evaluate("SPLIT('😀b', '')")).toEqual(['?', '?', 'b']);
    expect(evaluate("ASCII('😀')")).toBe(-16);
  });

  it('PRINTF formats as Java', () => {
    expect(evaluate("PRINTF('%s-%d', 'a', 42)")).toBe('a-42');
    expect(evaluate("PRINTF('%5s|%-4d|%%', 'c', n)", { n: null })).toBe('    c|null|%');
    expect(evaluate("PRINTF('%.2f %08.3f %x', 3.14159, -2.5, 255)")).toBe('3.14 -002.500 ff');
    expect(() => evaluate("PRINTF('%d', 'a')")).toThrow(/PRINTF/);
  });

  it('UUID gives a random version-4 UUID per call', () => {
    const a = evaluate('UUID()') as string;
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(evaluate('UUID()')).not.toBe(a);
  });
});

describe('regular expressions', () => {
  it('match, replace literally, extract, count and find', () => {
    expect(evaluate("REGEXP('42', '^\\d+$')")).toBe(true);
    expect(evaluate("REGEXP_REPLACE('pad', '(\\w)(\\w)', '$2$1')")).toBe('$2$1d');
    expect(evaluate("REGEXP_REPLACE('banana', 'a', '_')")).toBe('b_n_n_');
    expect(evaluate("REGEXP_EXTRACT_ALL('a1b22', '(\\d+)')")).toEqual(['1', '22']);
    expect(evaluate("REGEXP_EXTRACT_ALL('ab', '[a-z]', 0)")).toEqual(['a', 'b']);
    expect(evaluate("REGEXP_COUNT('abc', '')")).toBe(4);
    expect(evaluate("REGEXP_INSTR('ab3', '[0-9]')")).toBe(3);
    expect(evaluate("REGEXP_SUBSTR('x ümlaut', '[a-z]+')")).toBe('x');
    expect(evaluate("REGEXP_SUBSTR('123', '[a-z]+')")).toBeNull();
  });

  it('give NULL for a pattern that does not compile', () => {
    expect(evaluate("REGEXP('a', '(')")).toBeNull();
    expect(evaluate("REGEXP_REPLACE('a', '[', 'b')")).toBeNull();
  });
});

describe('hashes, Base64, character sets, hex', () => {
  it('hash the UTF-8 bytes', () => {
    expect(evaluate("MD5('')")).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(evaluate("SHA1('')")).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(evaluate("SHA256('')")).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(evaluate("SHA2('', 256)")).toBe(evaluate("SHA256('')"));
    expect(evaluate("SHA2('', 224)")).toBe(evaluate("SHA224('')"));
    expect(() => evaluate("SHA2('a', 100)")).toThrow(/SHA2: unsupported hash length 100/);
  });

  it('TO_BASE64, FROM_BASE64, ENCODE and DECODE', () => {
    expect(evaluate("TO_BASE64('ümlaut')")).toBe('w7xtbGF1dA==');
    expect(evaluate("FROM_BASE64('aGVsbG8=')")).toBe('hello');
    expect(hexOf(evaluate("ENCODE('ümlaut', 'ISO-8859-1')"))).toBe('fc6d6c617574');
    expect(hexOf(evaluate("ENCODE('ab', 'UTF-16BE')"))).toBe('00610062');
    expect(evaluate("DECODE(ENCODE('ümlaut', 'UTF-8'), 'US-ASCII')")).toBe('\ufffd\ufffdmlaut');
    expect(evaluate("DECODE(ENCODE('ümlaut', 'UTF-16'), 'UTF-16')")).toBe('ümlaut');
    expect(() => evaluate("ENCODE('a', 'EBCDIC')")).toThrow(/unsupported character set 'EBCDIC'/);
  });

  it('HEX, BIN and UNHEX as Flink (two complement, odd text)', () => {
    expect(evaluate('HEX(-41)')).toBe('FFFFFFFFFFFFFFD7');
    expect(evaluate("HEX('ab')")).toBe('6162');
    expect(() => evaluate("HEX(X'01')")).toThrow(/HEX needs an integer or a string/);
    expect(evaluate('BIN(10)')).toBe('1010');
    expect(hexOf(evaluate("UNHEX('414243')"))).toBe('414243');
    expect(hexOf(evaluate("UNHEX('414')"))).toBe('0014');
    expect(evaluate("UNHEX('zz')")).toBeNull();
  });

  it('HEX then UNHEX gives the UTF-8 bytes back (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(hexOf(evaluate('UNHEX(HEX(s))', { s }))).toBe(
          Buffer.from(s, 'utf8').toString('hex'),
        );
      }),
    );
  });
});

describe('URLs', () => {
  const url = "'http://user@example.com:8080/p/a.php?k1=v1&k2=v2#frag'";
  it('PARSE_URL gives the parts java.net.URL gives', () => {
    expect(evaluate(`PARSE_URL(${url}, 'HOST')`)).toBe('example.com');
    expect(evaluate(`PARSE_URL(${url}, 'FILE')`)).toBe('/p/a.php?k1=v1&k2=v2');
    expect(evaluate(`PARSE_URL(${url}, 'AUTHORITY')`)).toBe('user@example.com:8080');
    expect(evaluate(`PARSE_URL(${url}, 'QUERY', 'k2')`)).toBe('v2');
    expect(evaluate(`PARSE_URL(${url}, 'QUERY', 'k9')`)).toBeNull();
    expect(evaluate("PARSE_URL('not a url', 'HOST')")).toBeNull();
  });

  it('URL_ENCODE and URL_DECODE as URLEncoder and URLDecoder, NULL for a broken escape', () => {
    expect(evaluate("URL_ENCODE('a b,ü*~')")).toBe('a+b%2C%C3%BC*%7E');
    expect(evaluate("URL_DECODE('a%20b+c')")).toBe('a b c');
    expect(evaluate("URL_DECODE('%zz')")).toBeNull();
  });
});

describe('BYTES values', () => {
  it('X literals, casts from and to strings, comparisons', () => {
    expect(typeOf("X'0aFF'")).toBe('BINARY(2) NOT NULL');
    expect(evaluate("CAST(X'414243' AS STRING)")).toBe('ABC');
    expect(hexOf(evaluate("CAST('' AS BINARY(3))"))).toBe('000000');
    expect(hexOf(evaluate("CAST('abc' AS VARBINARY(2))"))).toBe('6162');
    expect(evaluate("CAST('abc' AS BYTES) = X'616263'")).toBe(true);
    expect(evaluate("X'01' < X'0100'")).toBe(true);
    expect(() => evaluate("X'ABC'")).toThrow(/even number of hexadecimal digits/);
  });
});

describe('unknown functions', () => {
  it('are refused at plan time with their position', () => {
    expect(() => evaluate('CBRT(d)')).toThrow(
      /^line 1, column 1: unknown function CBRT: not supported by Weir SQL yet$/,
    );
    expect(() => evaluate('NVL(n, 0)')).toThrow(/not supported by Weir SQL yet/);
  });
});
