//! The HLO text printer.

use crate::types::Shape;
use std::fmt::Write;

/// `f32[2,3]{1,0}`, `(f32[], s32[4]{0})`, `token[]`. Scalars print without a layout, as in XLA.
pub fn shape_to_string(shape: &Shape) -> String {
    let mut s = String::new();
    write_shape(&mut s, shape);
    s
}

pub(crate) fn write_shape(out: &mut String, shape: &Shape) {
    match shape {
        Shape::Array(a) => {
            let dims: Vec<String> = a.dims.iter().map(|d| d.to_string()).collect();
            let _ = write!(out, "{}[{}]", a.ty.name(), dims.join(","));
            if !a.dims.is_empty() {
                let l: Vec<String> = a.layout.minor_to_major.iter().map(|d| d.to_string()).collect();
                let _ = write!(out, "{{{}}}", l.join(","));
            }
        }
        Shape::Tuple(elems) => {
            out.push('(');
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_shape(out, e);
            }
            out.push(')');
        }
        Shape::Token => out.push_str("token[]"),
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&shape_to_string(self))
    }
}
