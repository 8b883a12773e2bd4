//! Tangents and cotangents as trees that follow a value's shape, with
//! symbolic zeros: a value that does not depend on the differentiated
//! parameters carries [`Tan::Zero`], so no zero arrays are built for it.

use crate::emit::Emitter;
use crate::TransformError;
use hlox_hlo::ir::InstId;
use hlox_hlo::Shape;

#[derive(Clone, Debug)]
pub(crate) enum Tan {
    Zero,
    /// A value of the primal's shape (an array, or a whole tuple).
    Val(InstId),
    Tuple(Vec<Tan>),
}

impl Tan {
    pub fn is_zero(&self) -> bool {
        match self {
            Tan::Zero => true,
            Tan::Val(_) => false,
            Tan::Tuple(t) => t.iter().all(Tan::is_zero),
        }
    }

    /// The tangent as one value of `shape` (zeros where symbolic).
    pub fn materialize(&self, e: &mut Emitter, shape: &Shape) -> Result<InstId, TransformError> {
        match (self, shape) {
            (Tan::Val(x), _) => Ok(*x),
            (Tan::Zero, s) => e.zeros(&tangent_shape(s)),
            (Tan::Tuple(parts), Shape::Tuple(shapes)) => {
                let mut xs = Vec::with_capacity(parts.len());
                for (p, s) in parts.iter().zip(shapes) {
                    xs.push(p.materialize(e, s)?);
                }
                e.tuple(&xs)
            }
            (Tan::Tuple(_), s) => Err(e.internal(format!(
                "a tuple tangent for a value of shape {}",
                hlox_hlo::shape_inference::short(s)
            ))),
        }
    }

    /// Element `i` of a tuple-shaped tangent.
    pub fn element(&self, e: &mut Emitter, i: usize) -> Result<Tan, TransformError> {
        Ok(match self {
            Tan::Zero => Tan::Zero,
            Tan::Tuple(t) => t.get(i).cloned().unwrap_or(Tan::Zero),
            Tan::Val(x) => Tan::Val(e.gte(*x, i)?),
        })
    }

    /// `self + other`, both tangents of a value of `shape`.
    pub fn add(self, other: Tan, e: &mut Emitter, shape: &Shape) -> Result<Tan, TransformError> {
        Ok(match (self, other) {
            (Tan::Zero, b) => b,
            (a, Tan::Zero) => a,
            (Tan::Val(a), Tan::Val(b)) if shape.is_array() => Tan::Val(e.addv(a, b)?),
            (a, b) => {
                let Shape::Tuple(shapes) = shape else {
                    return Err(e.internal("tuple tangents for an array value".into()));
                };
                let mut parts = Vec::with_capacity(shapes.len());
                for (i, s) in shapes.iter().enumerate() {
                    let x = a.element(e, i)?;
                    let y = b.element(e, i)?;
                    parts.push(x.add(y, e, s)?);
                }
                Tan::Tuple(parts)
            }
        })
    }
}

/// The shape of a tangent of a value of `shape`: the same (integer and
/// boolean leaves keep their shape too; their tangents are always zero).
pub(crate) fn tangent_shape(shape: &Shape) -> Shape {
    shape.clone()
}

/// Whether a value of `shape` can carry a nonzero tangent.
pub(crate) fn differentiable(shape: &Shape) -> bool {
    shape
        .leaves()
        .iter()
        .any(|(_, s)| s.element_type().is_some_and(|t| t.is_float_or_complex()))
}
