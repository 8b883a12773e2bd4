//! Low-level scanning of HLO text: a cursor over the source with position
//! tracking, trivia (whitespace, `/* */` and `//` comments) skipping, string
//! literals with C escapes, and the [`ParseError`] type.

use std::fmt;

/// A parse error with its location in the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub message: String,
    /// The source line the error points into (without its newline).
    pub source_line: String,
    /// The file the text came from, when known (see [`ParseError::with_file`]).
    pub file: Option<String>,
}

impl ParseError {
    /// An error at byte offset `pos` of `src`.
    pub fn at(src: &str, pos: usize, message: impl Into<String>) -> ParseError {
        let pos = clamp_to_char_boundary(src, pos.min(src.len()));
        let line_start = src[..pos].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
        let line = src[..pos].matches('\n').count() + 1;
        let column = src[line_start..pos].chars().count() + 1;
        let source_line = src[line_start..line_end].trim_end_matches('\r').to_string();
        ParseError {
            line,
            column,
            message: message.into(),
            source_line,
            file: None,
        }
    }
    /// Attach a file name: `Display` then renders `file:LINE:COL: message`.
    pub fn with_file(mut self, path: impl Into<String>) -> ParseError {
        self.file = Some(path.into());
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
        }
        writeln!(f, "{}:{}: {}", self.line, self.column, self.message)?;
        // A very long line (a 100,000-level tuple shape) is shown as a window
        // around the column, `...` marking what was cut.
        const MAX: usize = 160;
        const AROUND: usize = 70;
        let chars: Vec<char> = self.source_line.chars().collect();
        let col = self.column.saturating_sub(1).min(chars.len());
        let (from, to) = if chars.len() <= MAX {
            (0, chars.len())
        } else {
            (col.saturating_sub(AROUND), (col + AROUND).min(chars.len()))
        };
        let head = if from > 0 { "..." } else { "" };
        let tail = if to < chars.len() { "..." } else { "" };
        let shown: String = chars[from..to].iter().collect();
        writeln!(f, "{head}{shown}{tail}")?;
        // Keep tabs so the caret lines up under tab-indented text.
        let pad: String = head
            .chars()
            .chain(chars[from..col].iter().copied())
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "{pad}^")
    }
}

fn clamp_to_char_boundary(s: &str, mut pos: usize) -> usize {
    while pos > 0 && !s.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

pub(crate) type PResult<T> = Result<T, ParseError>;

/// `[A-Za-z0-9_.-]`: characters that continue an identifier or a name.
pub(crate) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-'
}

/// A cursor over `src[pos..end]`. Sub-cursors over an attribute value share
/// the whole source so their errors carry the right line and column.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    pub src: &'a str,
    pub pos: usize,
    pub end: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Cursor<'a> {
        Cursor {
            src,
            pos: 0,
            end: src.len(),
        }
    }
    pub fn sub(&self, start: usize, end: usize) -> Cursor<'a> {
        Cursor {
            src: self.src,
            pos: start,
            end,
        }
    }
    pub fn bytes(&self) -> &'a [u8] {
        &self.src.as_bytes()[..self.end]
    }
    pub fn err<T>(&self, pos: usize, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError::at(self.src, pos, msg))
    }
    pub fn error(&self, pos: usize, msg: impl Into<String>) -> ParseError {
        ParseError::at(self.src, pos, msg)
    }
    /// Skip whitespace and comments.
    pub fn skip_trivia(&mut self) -> PResult<()> {
        let b = self.bytes();
        loop {
            while self.pos < self.end && b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos + 1 < self.end && b[self.pos] == b'/' && b[self.pos + 1] == b'*' {
                let start = self.pos;
                self.pos += 2;
                loop {
                    if self.pos + 1 >= self.end {
                        return self.err(start, "unterminated /* comment");
                    }
                    if b[self.pos] == b'*' && b[self.pos + 1] == b'/' {
                        self.pos += 2;
                        break;
                    }
                    self.pos += 1;
                }
                continue;
            }
            if self.pos + 1 < self.end && b[self.pos] == b'/' && b[self.pos + 1] == b'/' {
                while self.pos < self.end && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            return Ok(());
        }
    }
    /// The next significant byte (after trivia), without consuming it.
    pub fn peek(&mut self) -> PResult<Option<u8>> {
        self.skip_trivia()?;
        Ok(self
            .bytes()
            .get(self.pos)
            .copied()
            .filter(|_| self.pos < self.end))
    }
    pub fn at_end(&mut self) -> PResult<bool> {
        Ok(self.peek()?.is_none())
    }
    /// Consume `c` if it is next.
    pub fn eat(&mut self, c: u8) -> PResult<bool> {
        if self.peek()? == Some(c) {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    /// Consume `s` if it is next (after trivia).
    pub fn eat_str(&mut self, s: &str) -> PResult<bool> {
        self.skip_trivia()?;
        if self.bytes()[self.pos..].starts_with(s.as_bytes()) {
            self.pos += s.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }
    pub fn expect(&mut self, c: u8, context: &str) -> PResult<()> {
        if self.eat(c)? {
            Ok(())
        } else {
            let found = self.describe_next();
            self.err(
                self.pos,
                format!("expected '{}' {context}, found {found}", c as char),
            )
        }
    }
    /// A short description of what is at the cursor, for error messages.
    pub fn describe_next(&mut self) -> String {
        let _ = self.skip_trivia();
        if self.pos >= self.end {
            return "end of input".to_string();
        }
        let rest = &self.src[self.pos..self.end];
        let tok: String = if is_ident_char(rest.as_bytes()[0]) {
            rest.chars()
                .take_while(|c| c.is_ascii() && is_ident_char(*c as u8))
                .take(40)
                .collect()
        } else {
            rest.chars().take(1).collect()
        };
        format!("'{tok}'")
    }
    /// `[A-Za-z_][A-Za-z0-9_.-]*`
    pub fn ident(&mut self, what: &str) -> PResult<(&'a str, usize)> {
        self.skip_trivia()?;
        let b = self.bytes();
        let start = self.pos;
        if start < self.end && (b[start].is_ascii_alphabetic() || b[start] == b'_') {
            let mut p = start + 1;
            while p < self.end && is_ident_char(b[p]) {
                p += 1;
            }
            self.pos = p;
            Ok((&self.src[start..p], start))
        } else {
            let found = self.describe_next();
            self.err(start, format!("expected {what}, found {found}"))
        }
    }
    /// A name with an optional leading `%`.
    pub fn name(&mut self, what: &str) -> PResult<(&'a str, usize)> {
        self.skip_trivia()?;
        let pct = self.pos;
        if self.pos < self.end && self.bytes()[self.pos] == b'%' {
            self.pos += 1;
            if self.pos >= self.end
                || !(self.bytes()[self.pos].is_ascii_alphabetic() || self.bytes()[self.pos] == b'_')
            {
                return self.err(pct, format!("expected {what} after '%'"));
            }
        }
        self.ident(what)
    }
    /// True when the next significant text is an identifier equal to `kw`
    /// (not a prefix of a longer identifier).
    pub fn peek_keyword(&mut self, kw: &str) -> PResult<bool> {
        self.skip_trivia()?;
        let b = self.bytes();
        let rest = &b[self.pos..];
        Ok(
            rest.starts_with(kw.as_bytes())
                && rest.get(kw.len()).is_none_or(|&c| !is_ident_char(c)),
        )
    }
    pub fn eat_keyword(&mut self, kw: &str) -> PResult<bool> {
        if self.peek_keyword(kw)? {
            self.pos += kw.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }
    /// Skips trivia before a number: where it starts, and where it goes on
    /// after an optional `-` or `+` sign. Consumes nothing else.
    pub fn signed_start(&mut self) -> PResult<(usize, usize)> {
        self.skip_trivia()?;
        let start = self.pos;
        let signed = start < self.end && matches!(self.bytes()[start], b'-' | b'+');
        Ok((start, start + usize::from(signed)))
    }
    /// A signed decimal integer, wide enough for u64 and i64 values.
    pub fn int(&mut self, what: &str) -> PResult<(i128, usize)> {
        let (start, mut p) = self.signed_start()?;
        let b = self.bytes();
        let digits = p;
        while p < self.end && b[p].is_ascii_digit() {
            p += 1;
        }
        if p == digits {
            let found = self.describe_next();
            return self.err(
                start,
                format!("expected {what} (an integer), found {found}"),
            );
        }
        let text = &self.src[start..p];
        let v: i128 = text
            .trim_start_matches('+')
            .parse()
            .map_err(|_| self.error(start, format!("integer '{text}' is out of range")))?;
        if v > u64::MAX as i128 || v < i64::MIN as i128 {
            return self.err(start, format!("integer '{text}' is out of range"));
        }
        self.pos = p;
        Ok((v, start))
    }
    /// An integer that must fit in i64.
    pub fn i64(&mut self, what: &str) -> PResult<i64> {
        let (v, pos) = self.int(what)?;
        i64::try_from(v).map_err(|_| {
            self.error(
                pos,
                format!("{what} {v} does not fit in a signed 64-bit integer"),
            )
        })
    }
    /// A quoted string (`"..."` or `'...'`) with C escapes, as raw bytes.
    pub fn string(&mut self, what: &str) -> PResult<(Vec<u8>, usize)> {
        self.skip_trivia()?;
        let b = self.bytes();
        let start = self.pos;
        if start >= self.end || (b[start] != b'"' && b[start] != b'\'') {
            let found = self.describe_next();
            return self.err(
                start,
                format!("expected {what} (a quoted string), found {found}"),
            );
        }
        let p = self.closing_quote(start)?;
        let raw = &self.src[start + 1..p];
        let bytes = c_unescape(raw).map_err(|(off, msg)| self.error(start + 1 + off, msg))?;
        self.pos = p + 1;
        Ok((bytes, start))
    }
    /// The position of the quote that closes the string opened by the quote
    /// at `open` (a backslash escapes the next byte), or "unterminated
    /// string" at `open`.
    fn closing_quote(&self, open: usize) -> PResult<usize> {
        let b = self.bytes();
        let q = b[open];
        let mut p = open + 1;
        while p < self.end {
            match b[p] {
                b'\\' => p += 2,
                c if c == q => return Ok(p),
                _ => p += 1,
            }
        }
        self.err(open, "unterminated string")
    }
    /// A quoted string that must be valid UTF-8.
    pub fn utf8_string(&mut self, what: &str) -> PResult<String> {
        let (bytes, pos) = self.string(what)?;
        String::from_utf8(bytes).map_err(|_| self.error(pos, format!("{what} is not valid UTF-8")))
    }
    /// Scan an attribute value and return its byte span. A value is a quoted
    /// string, or a run of text where `{}`, `()` and `[]` nest and strings are
    /// skipped, ending at a `,` or closing bracket at depth 0, or whitespace
    /// at depth 0.
    pub fn scan_value(&mut self) -> PResult<(usize, usize)> {
        // Only spaces and tabs: a value never starts on the next line, so an
        // empty value (`padding=` of a scalar pad) ends at the newline.
        let b = self.bytes();
        while self.pos < self.end && (b[self.pos] == b' ' || b[self.pos] == b'\t') {
            self.pos += 1;
        }
        let start = self.pos;
        let mut p = start;
        let mut stack: Vec<u8> = Vec::new();
        while p < self.end {
            let c = b[p];
            match c {
                b'"' | b'\'' => {
                    p = self.closing_quote(p)? + 1;
                    if stack.is_empty() {
                        break;
                    }
                    continue;
                }
                b'{' | b'(' | b'[' => stack.push(c),
                b'}' | b')' | b']' => {
                    let open = match c {
                        b'}' => b'{',
                        b')' => b'(',
                        _ => b'[',
                    };
                    match stack.pop() {
                        None => break,
                        Some(o) if o == open => {
                            if stack.is_empty() {
                                p += 1;
                                // An iota device list goes on after its
                                // brackets: `[2,2]<=[4]T(1,0)`.
                                let rest = &b[p..self.end];
                                if c == b']' && (rest.starts_with(b"<=") || rest.starts_with(b"T("))
                                {
                                    continue;
                                }
                                break;
                            }
                        }
                        Some(o) => {
                            return self.err(
                                p,
                                format!("unbalanced '{}' (opened by '{}')", c as char, o as char),
                            )
                        }
                    }
                }
                b',' if stack.is_empty() => break,
                c if c.is_ascii_whitespace() && stack.is_empty() => break,
                _ => {}
            }
            p += 1;
        }
        if !stack.is_empty() {
            return self.err(start, format!("unterminated '{}'", stack[0] as char));
        }
        self.pos = p.min(self.end);
        Ok((start, self.pos))
    }
    /// Scan a `{...}` dictionary the way XLA's `LexJsonDict` does: only braces
    /// nest, and `"` strings are skipped. Returns the span, braces included.
    pub fn scan_json_dict(&mut self) -> PResult<(usize, usize)> {
        self.skip_trivia()?;
        let start = self.pos;
        match json_dict_len(&self.src.as_bytes()[start..self.end]) {
            Some(n) => {
                self.pos = start + n;
                Ok((start, start + n))
            }
            None => self.err(start, "unterminated '{' (or unterminated string inside it)"),
        }
    }
}

/// The length of the `{...}` dictionary at the start of `b` (braces nest,
/// `"` strings with backslash escapes are skipped), or `None`.
pub(crate) fn json_dict_len(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut p = 0;
    while p < b.len() {
        match b[p] {
            b'"' => {
                p += 1;
                loop {
                    if p >= b.len() {
                        return None;
                    }
                    if b[p] == b'\\' {
                        p += 2;
                        continue;
                    }
                    if b[p] == b'"' {
                        break;
                    }
                    p += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(p + 1);
                }
            }
            _ => {}
        }
        p += 1;
    }
    None
}

/// True when `b` is exactly one `{...}` dictionary (see [`json_dict_len`])
/// and valid UTF-8: such values print unquoted, as XLA prints them.
pub(crate) fn is_json_dict(b: &[u8]) -> bool {
    json_dict_len(b) == Some(b.len()) && std::str::from_utf8(b).is_ok()
}

/// absl's `CEscape`: `\n \r \t \" \' \\`, printable ASCII as is, every other
/// byte as a three-digit octal escape. Any byte string round-trips through
/// [`c_unescape`].
pub fn c_escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &c in bytes {
        match c {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(c as char),
            _ => {
                out.push('\\');
                out.push((b'0' + (c >> 6)) as char);
                out.push((b'0' + ((c >> 3) & 7)) as char);
                out.push((b'0' + (c & 7)) as char);
            }
        }
    }
    out
}

/// Escape only what must be escaped inside a quoted string (`"`, `\`,
/// control bytes); other characters, non-ASCII included, stay as they are.
pub(crate) fn utf8_safe_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if (ch as u32) < 0x80
            && (ch == '"' || ch == '\\' || ch == '\'' || (ch as u32) < 0x20 || ch as u32 == 0x7f)
        {
            let mut buf = [0u8; 4];
            out.push_str(&c_escape(ch.encode_utf8(&mut buf).as_bytes()));
        } else {
            out.push(ch);
        }
    }
    out
}

/// absl's `CUnescape`. On error returns the byte offset in `s` and a message.
pub fn c_unescape(s: &str) -> Result<Vec<u8>, (usize, String)> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let esc = i;
        i += 1;
        let Some(&c) = b.get(i) else {
            return Err((esc, "string ends with a lone backslash".into()));
        };
        i += 1;
        match c {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'\\' | b'\'' | b'"' | b'?' => out.push(c),
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                if v > 0xff {
                    return Err((esc, format!("octal escape \\{:o} is larger than a byte", v)));
                }
                out.push(v as u8);
            }
            b'x' | b'X' => {
                let start = i;
                while i < b.len() && i < start + 2 && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                if i == start {
                    return Err((esc, "\\x escape without hex digits".into()));
                }
                out.push(
                    u8::from_str_radix(&s[start..i], 16)
                        .map_err(|_| (esc, "bad \\x escape".to_string()))?,
                );
            }
            b'u' | b'U' => {
                let n = if c == b'u' { 4 } else { 8 };
                let digits = s
                    .get(i..i + n)
                    .filter(|d| d.bytes().all(|x| x.is_ascii_hexdigit()));
                let Some(digits) = digits else {
                    return Err((esc, format!("\\{} escape needs {n} hex digits", c as char)));
                };
                let v = u32::from_str_radix(digits, 16)
                    .map_err(|_| (esc, "bad unicode escape".to_string()))?;
                let ch = char::from_u32(v).ok_or((
                    esc,
                    format!("\\{}{digits} is not a valid code point", c as char),
                ))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                i += n;
            }
            _ => {
                let ch = s[i - 1..].chars().next().unwrap_or('?');
                return Err((esc, format!("unknown escape sequence '\\{ch}'")));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips_through_c_escape() {
        let all: Vec<u8> = (0..=255u8).collect();
        let esc = c_escape(&all);
        assert!(esc.is_ascii());
        assert_eq!(c_unescape(&esc).unwrap(), all);
        for b in 0..=255u8 {
            let one = [b, b'7', 0, b'x'];
            assert_eq!(
                c_unescape(&c_escape(&one)).unwrap(),
                one.to_vec(),
                "byte {b}"
            );
        }
    }

    #[test]
    fn unescape_forms() {
        assert_eq!(
            c_unescape(r#"a\"b\n\101\x41\u00e9"#).unwrap(),
            b"a\"b\nAA\xc3\xa9".to_vec()
        );
        assert!(c_unescape("\\q").is_err());
        assert!(c_unescape("\\").is_err());
        assert!(c_unescape("\\777").is_err());
    }

    #[test]
    fn error_display_has_caret() {
        let e = ParseError::at("ab\n  xyz\n", 5, "bad thing").with_file("f.hlo");
        assert_eq!(e.to_string(), "f.hlo:2:3: bad thing\n  xyz\n  ^");
    }
}
