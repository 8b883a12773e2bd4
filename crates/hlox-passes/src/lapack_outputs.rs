//! jaxlib's LAPACK custom calls told not to compute outputs no one reads.

use crate::rewrite::{local_rewrite_pass, LocalRewrite, Rewritten, Site};
use crate::PassError;
use hlox_ffi::xla_ffi::abi::dtype;
use hlox_ffi::xla_ffi::{parse_attrs, AttrValue};
use hlox_hlo::{CompId, Computation, CustomCallApiVersion, InstId, Module, Op};

/// Switches a jaxlib LAPACK call (`lapack_<t><routine>_ffi`, typed FFI)
/// from computing vectors to not computing them when the results that hold
/// the vectors have no readers. JAX lowers `jnp.linalg.eigvalsh` as the
/// full `eigh` (`lapack_ssyevd_ffi` with `mode = 'V'`) and drops the
/// vectors afterwards, and XLA runs it that way; after dead code
/// elimination the vectors' `get-tuple-element` is gone, and the call can
/// ask for values only, which is several times cheaper (no accumulated
/// orthogonal transformations).
///
/// Each attribute below is part of jaxlib's published interface, with the
/// same meaning for any implementation of these targets (hlox's own
/// `hlox-jaxlib`, or jaxlib's kernels loaded as a plugin): what a call
/// computes in the unread results changes; what the read results hold does
/// not.
///
/// | routine | attribute | results that must be unread |
/// |---|---|---|
/// | `syevd`, `heevd` | `mode` `'V'` -> `'N'` | 0 (vectors) |
/// | `gesdd`, `gesvd` | `mode` `'A'`, `'S'` -> `'N'` | 0 (scratch), 2 (`u`), 3 (`vt`) |
/// | `gees` | `mode` `'V'` -> `'N'` | 1 (Schur vectors) |
/// | `geev` | `compute_left` `'V'` -> `'N'` | `vl` (2 real, 1 complex) |
/// | `geev` | `compute_right` `'V'` -> `'N'` | `vr` (3 real, 2 complex) |
///
/// A result is unread when every user of the call is a `get-tuple-element`
/// of another index (a call used whole, or the root, keeps everything).
/// The attribute text is edited in place and parsed again; anything other
/// than the one value changed leaves the call as it was.
#[derive(Clone, Copy, Debug, Default)]
pub struct LapackDeadOutputs;

/// One attribute that can switch results off.
struct Switch {
    attr: &'static str,
    /// The values that compute the results.
    computing: &'static [u8],
    /// The value that does not.
    off: u8,
    /// The results it computes.
    results: &'static [At],
}

/// A result by its position: from the front, or from the back (real and
/// complex `geev` have different numbers of results before the vectors).
#[derive(Clone, Copy)]
enum At {
    Front(usize),
    Back(usize),
}

impl At {
    /// The index among `n` results, if there is one.
    fn index(self, n: usize) -> Option<usize> {
        match self {
            At::Front(i) => (i < n).then_some(i),
            At::Back(k) => n.checked_sub(k),
        }
    }
}

/// The switches of the LAPACK routine `routine` (the target's name without
/// `lapack_`, the type letter and `_ffi`).
fn switches(routine: &str) -> &'static [Switch] {
    const EIGH: &[Switch] = &[Switch {
        attr: "mode",
        computing: b"V",
        off: b'N',
        results: &[At::Front(0)],
    }];
    const SVD: &[Switch] = &[Switch {
        attr: "mode",
        computing: b"AS",
        off: b'N',
        results: &[At::Front(0), At::Front(2), At::Front(3)],
    }];
    const SCHUR: &[Switch] = &[Switch {
        attr: "mode",
        computing: b"V",
        off: b'N',
        results: &[At::Front(1)],
    }];
    // Real: (wr, wi, vl, vr, info); complex: (w, vl, vr, info).
    const EIG: &[Switch] = &[
        Switch {
            attr: "compute_left",
            computing: b"V",
            off: b'N',
            results: &[At::Back(3)],
        },
        Switch {
            attr: "compute_right",
            computing: b"V",
            off: b'N',
            results: &[At::Back(2)],
        },
    ];
    match routine {
        "syevd" | "heevd" => EIGH,
        "gesdd" | "gesvd" => SVD,
        "gees" => SCHUR,
        "geev" => EIG,
        _ => &[],
    }
}

/// `lapack_<t><routine>_ffi` -> `routine`, for t in s, d, c, z.
fn lapack_routine(target: &str) -> Option<&str> {
    let rest = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
    let mut chars = rest.chars();
    matches!(chars.next()?, 's' | 'd' | 'c' | 'z').then(|| chars.as_str())
}

/// The switches of a typed-FFI custom call to a jaxlib LAPACK target
/// (none for any other call).
fn call_switches(op: &Op) -> &'static [Switch] {
    match op {
        Op::CustomCall(cc) if cc.api_version == CustomCallApiVersion::TypedFfi => {
            lapack_routine(&cc.target).map_or(&[], switches)
        }
        _ => &[],
    }
}

/// The `u8` attribute `name` of the typed-FFI attribute dictionary `text`.
fn u8_attr(attrs: &[(String, AttrValue)], name: &str) -> Option<u8> {
    attrs.iter().find_map(|(k, v)| match v {
        AttrValue::Scalar { dtype: d, bytes } if k == name && *d == dtype::U8 => {
            bytes.first().copied()
        }
        _ => None,
    })
}

/// `text` (which parses to `before`) with the top-level `u8` attribute
/// `name` set from `from` to `to`, or `None` where the text cannot be
/// edited with certainty: the value is found as `name = <from>` (spaces
/// optional) once, replaced, and the new text must parse to the old
/// dictionary with only that value changed.
fn set_u8_attr(
    text: &[u8],
    before: &[(String, AttrValue)],
    name: &str,
    from: u8,
    to: u8,
) -> Option<Vec<u8>> {
    let key = name.as_bytes();
    let digits = from.to_string();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$';
    let mut spans = Vec::new();
    for (start, w) in text.windows(key.len()).enumerate() {
        if w != key || (start > 0 && is_word(text[start - 1])) {
            continue;
        }
        let mut i = start + key.len();
        let skip_ws = |i: &mut usize| {
            while *i < text.len() && text[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip_ws(&mut i);
        if text.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        skip_ws(&mut i);
        let end = i + digits.len();
        if text.get(i..end) == Some(digits.as_bytes())
            && !text.get(end).is_some_and(|b| b.is_ascii_digit())
        {
            spans.push(i..end);
        }
    }
    let [span] = spans.as_slice() else {
        return None;
    };
    let mut out = text[..span.start].to_vec();
    out.extend_from_slice(to.to_string().as_bytes());
    out.extend_from_slice(&text[span.end..]);
    let after = parse_attrs(&out).ok()?;
    let expected: Vec<(String, AttrValue)> = before
        .iter()
        .map(|(k, v)| match v {
            AttrValue::Scalar { dtype: d, .. } if k == name && *d == dtype::U8 => (
                k.clone(),
                AttrValue::Scalar {
                    dtype: *d,
                    bytes: vec![to],
                },
            ),
            v => (k.clone(), v.clone()),
        })
        .collect();
    (after == expected).then_some(out)
}

struct SwitchOff;

impl LocalRewrite for SwitchOff {
    const NAME: &'static str = "lapack-dead-outputs";
    type Pass = LapackDeadOutputs;
    type State = ();

    fn start(_: &LapackDeadOutputs, _: &mut Module) -> Result<SwitchOff, PassError> {
        Ok(SwitchOff)
    }

    fn begin(&mut self, _: &Module, _: CompId, c: &Computation) -> Option<()> {
        c.instructions
            .values()
            .any(|i| !call_switches(&i.op).is_empty())
            .then_some(())
    }

    fn rewrite(&mut self, site: Site<'_, '_, ()>, id: InstId) -> Rewritten {
        let ed = site.ed;
        let inst = ed.inst(id);
        let (switches, Op::CustomCall(cc)) = (call_switches(&inst.op), &inst.op) else {
            return Ok(());
        };
        let Some(n_results) = inst.shape.tuple_elements().map(|t| t.len()) else {
            return Ok(());
        };
        if switches.is_empty() || ed.root() == id {
            return Ok(());
        }
        // The results someone reads (a call used whole keeps everything).
        let mut read = vec![false; n_results];
        for &u in ed.users(id) {
            match ed.inst(u).op {
                Op::GetTupleElement { index } if (index as usize) < n_results => {
                    read[index as usize] = true
                }
                _ => return Ok(()),
            }
        }
        let mut opaque = cc.opaque.clone();
        for s in switches {
            let Ok(attrs) = parse_attrs(&opaque) else {
                return Ok(());
            };
            let Some(value) = u8_attr(&attrs, s.attr) else {
                continue;
            };
            let unread = s
                .results
                .iter()
                .all(|r| r.index(n_results).is_some_and(|r| !read[r]));
            if !s.computing.contains(&value) || !unread {
                continue;
            }
            if let Some(new) = set_u8_attr(&opaque, &attrs, s.attr, value, s.off) {
                opaque = new;
            }
        }
        if opaque != cc.opaque {
            let mut cc = cc.clone();
            cc.opaque = opaque;
            let (operands, called) = (inst.operands.clone(), inst.called.clone());
            ed.rewrite(id, Op::CustomCall(cc), operands, called)?;
        }
        Ok(())
    }
}

local_rewrite_pass!(LapackDeadOutputs => SwitchOff);

#[cfg(test)]
mod tests {
    use super::*;

    /// [`set_u8_attr`] on text that parses.
    fn set(text: &[u8], name: &str, from: u8, to: u8) -> Option<Vec<u8>> {
        set_u8_attr(text, &parse_attrs(text).ok()?, name, from, to)
    }

    #[test]
    fn attribute_text_is_edited_only_when_certain() {
        let t = b"{mode = 86 : ui8, uplo = 76 : ui8}";
        assert_eq!(
            set(t, "mode", 86, 78).as_deref(),
            Some(&b"{mode = 78 : ui8, uplo = 76 : ui8}"[..])
        );
        // Spacing as any printer may write it.
        assert_eq!(
            set(b"{uplo=76:ui8,mode=86:ui8}", "mode", 86, 78).as_deref(),
            Some(&b"{uplo=76:ui8,mode=78:ui8}"[..])
        );
        // Not the value the dictionary holds, another type, a key that only
        // ends in the name, a string that looks like the entry: unchanged.
        assert_eq!(set(t, "mode", 65, 78), None);
        assert_eq!(set(b"{mode = 86 : i32}", "mode", 86, 78), None);
        assert_eq!(set(b"{xmode = 86 : ui8}", "mode", 86, 78), None);
        assert_eq!(
            set(b"{mode = 86 : ui8, s = \"mode = 86\"}", "mode", 86, 78),
            None
        );
        assert_eq!(set(b"{mode = 86 : ui8", "mode", 86, 78), None);
    }

    #[test]
    fn routines_by_target_name() {
        assert_eq!(lapack_routine("lapack_ssyevd_ffi"), Some("syevd"));
        assert_eq!(lapack_routine("lapack_zheevd_ffi"), Some("heevd"));
        assert_eq!(lapack_routine("lapack_xsyevd_ffi"), None);
        assert_eq!(lapack_routine("lapack_ssyevd"), None);
        assert_eq!(lapack_routine("my_ssyevd_ffi"), None);
    }
}
