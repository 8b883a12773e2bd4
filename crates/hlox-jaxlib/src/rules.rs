//! How the jaxlib LAPACK targets differentiate and batch: their rules for
//! hlox-transform (docs/transforms.md, "Custom calls"), the MLX seed's
//! "a primitive carries its own jvp, vjp and vmap".
//!
//! - **vmap**, every target: each one treats leading dimensions as a batch
//!   (`split_batch` in lapack.rs), so a batched call is one call with the
//!   batch dimension in front of every operand and result: JAX's
//!   `broadcast_all`.
//! - **jvp and vjp**, the real Cholesky factorization
//!   (`lapack_{s,d}potrf_ffi`, lower triangle), triangular solve
//!   (`lapack_{s,d}trsm_ffi`, every side, triangle, transpose and
//!   diagonal), LU factorization of square matrices
//!   (`lapack_{s,d}getrf_ffi`), symmetric eigendecomposition
//!   (`lapack_{s,d}syevd_ffi`, vectors or values only) and singular value
//!   decomposition (`lapack_{s,d}gesdd_ffi`, `..gesvd_ffi`: thin, values
//!   only, or full of a square matrix), written with the builder from
//!   JAX's rules (`cholesky_jvp_rule`, `_triangular_solve_jvp_rule_a`,
//!   `_lu_jvp_rule`, `_eigh_jvp_rule`, `_svd_jvp_rule`) and their
//!   transposes; a rule calls the target itself for the primal result and
//!   the solves it needs. The rules' bodies are ordinary HLO, so second
//!   order works through them.
//!
//! The complex variants, the upper-triangle Cholesky, the LU of a
//! rectangular matrix, the full SVD of a rectangular one (JAX has none
//! either) and the other factorizations (QR, whose Householder form
//! `geqrf` + `orgqr` JAX differentiates before lowering; `eig`, Schur,
//! Hessenberg) have no jvp or vjp rule yet: differentiating through one is
//! an error naming the target and the missing rule.

use hlox_ffi::xla_ffi::{parse_attrs, AttrValue};
use hlox_hlo::builder::{BuildError, XlaBuilder, XlaOp};
use hlox_hlo::{
    ArrayShape, ComparisonDirection, CustomCall, CustomCallApiVersion, CustomCallSchedule,
    DotDimensionNumbers, ElementType, Layout, Literal, Module, Shape,
};
use hlox_transform::{CallInfo, RuleKind, Rules, VmapMethod};

/// The rules of every target of [`crate::TARGETS`]: transformations use
/// them unless the user gives a rule of their own for the same target.
pub fn rules() -> Rules {
    let mut r = Rules::new();
    for t in crate::TARGETS {
        r.vmap_method(t, VmapMethod::BroadcastAll);
    }
    let both = |r: &mut Rules, targets: &[&str], rule: RuleFn| {
        for t in targets {
            r.rule(RuleKind::Jvp, t, move |c| rule(c, Mode::Jvp));
            r.rule(RuleKind::Vjp, t, move |c| rule(c, Mode::Vjp));
        }
    };
    both(
        &mut r,
        &["lapack_spotrf_ffi", "lapack_dpotrf_ffi"],
        potrf_rule,
    );
    both(&mut r, &["lapack_strsm_ffi", "lapack_dtrsm_ffi"], trsm_rule);
    both(
        &mut r,
        &["lapack_sgetrf_ffi", "lapack_dgetrf_ffi"],
        getrf_rule,
    );
    both(
        &mut r,
        &["lapack_ssyevd_ffi", "lapack_dsyevd_ffi"],
        syevd_rule,
    );
    let svd = [
        "lapack_sgesdd_ffi",
        "lapack_dgesdd_ffi",
        "lapack_sgesvd_ffi",
        "lapack_dgesvd_ffi",
    ];
    both(&mut r, &svd, gesdd_rule);
    r
}

/// A rule builder: the rule module of a call, in either mode.
type RuleFn = fn(&CallInfo, Mode) -> Result<Module, BuildError>;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    Jvp,
    Vjp,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Jvp => "jvp",
            Mode::Vjp => "vjp",
        }
    }
}

fn invalid(c: &CallInfo, message: impl Into<String>) -> BuildError {
    BuildError::Invalid {
        op: c.target.to_string(),
        message: message.into(),
    }
}

/// The `u8` attribute `name` of the call's typed-FFI `backend_config`.
fn char_attr(c: &CallInfo, name: &str) -> Result<u8, BuildError> {
    let attrs = parse_attrs(c.opaque).map_err(|e| invalid(c, format!("backend_config: {e}")))?;
    match attrs.iter().find(|(k, _)| k == name) {
        Some((_, AttrValue::Scalar { bytes, .. })) if bytes.len() == 1 => Ok(bytes[0]),
        Some(_) => Err(invalid(c, format!("attribute `{name}` is not a ui8"))),
        None => Err(invalid(c, format!("the call has no `{name}` attribute"))),
    }
}

/// Operand `k` of the call: a real matrix (or batch of them), default layout.
fn matrix(c: &CallInfo, k: usize) -> Result<ArrayShape, BuildError> {
    match c.operands.get(k).map(|s| s.with_default_layout()) {
        Some(Shape::Array(a))
            if a.rank() >= 2 && matches!(a.ty, ElementType::F32 | ElementType::F64) =>
        {
            Ok(a)
        }
        Some(s) => Err(invalid(
            c,
            format!(
                "operand {k} is {}: rules exist for real (f32, f64) matrices only; the complex \
                 variants have none yet",
                hlox_hlo::shape_inference::short(&s)
            ),
        )),
        None => Err(invalid(c, format!("the call has no operand {k}"))),
    }
}

/// `s` laid out as LAPACK reads it: the last two dimensions column-major,
/// batch dimensions major (what JAX's `operand_layout_constraints` ask).
fn column_major(s: &ArrayShape) -> ArrayShape {
    let r = s.rank() as i64;
    let mut m2m = vec![r - 2, r - 1];
    m2m.extend((0..r - 2).rev());
    ArrayShape {
        ty: s.ty,
        dims: s.dims.clone(),
        layout: Layout {
            minor_to_major: m2m,
        },
    }
}

/// Builder helpers over matrices of one shape family: `dims` are a
/// matrix's dimensions (batch dimensions, then rows and columns).
struct Mats<'a> {
    b: &'a XlaBuilder,
    ty: ElementType,
    rank: usize,
}

impl<'a> Mats<'a> {
    /// The helpers for matrices like `a` (its element type and rank).
    fn of(b: &'a XlaBuilder, a: &ArrayShape) -> Mats<'a> {
        Mats {
            b,
            ty: a.ty,
            rank: a.dims.len(),
        }
    }

    fn scalar(&self, v: f64) -> Result<XlaOp, BuildError> {
        match self.ty {
            ElementType::F32 => self.b.constant_literal(&Literal::r0(v as f32)),
            _ => self.b.constant_literal(&Literal::r0(v)),
        }
    }
    fn full(&self, v: f64, dims: &[i64]) -> Result<XlaOp, BuildError> {
        let s = self.scalar(v)?;
        self.b.broadcast(s, dims)
    }
    /// `row DIR column` for every element of a `dims` matrix.
    fn mask(&self, dir: ComparisonDirection, dims: &[i64]) -> Result<XlaOp, BuildError> {
        let s = Shape::array(ElementType::S32, dims.to_vec());
        let row = self.b.iota(&s, self.rank as i64 - 2)?;
        let col = self.b.iota(&s, self.rank as i64 - 1)?;
        self.b.compare(dir, row, col)
    }
    /// `x` where `row DIR column`, else 0.
    fn keep(&self, dir: ComparisonDirection, x: XlaOp, dims: &[i64]) -> Result<XlaOp, BuildError> {
        let m = self.mask(dir, dims)?;
        let z = self.full(0.0, dims)?;
        self.b.select(m, x, z)
    }
    /// `v` (`[batch..., n]`) spread over a `dims` matrix along its rows
    /// (`v_j` at `(i, j)`: `cols = true`) or its columns (`v_i`).
    fn spread(&self, v: XlaOp, dims: &[i64], cols: bool) -> Result<XlaOp, BuildError> {
        let r = self.rank as i64;
        let mut map: Vec<i64> = (0..r - 2).collect();
        map.push(if cols { r - 1 } else { r - 2 });
        self.b.broadcast_in_dim(v, dims, &map)
    }
    /// The diagonal of a square `dims` matrix, `[batch..., n]`.
    fn diagonal(&self, x: XlaOp, dims: &[i64]) -> Result<XlaOp, BuildError> {
        let add = {
            let sb = XlaBuilder::new("add");
            let scalar = Shape::array(self.ty, Vec::new());
            let p = sb.parameter(0, &scalar, "x")?;
            let q = sb.parameter(1, &scalar, "y")?;
            let r = sb.add(p, q)?;
            sb.build(r)?
        };
        let on_diag = self.keep(EQ, x, dims)?;
        self.b.reduce(
            &[on_diag],
            &[self.scalar(0.0)?],
            &add,
            &[self.rank as i64 - 1],
        )
    }
    /// `1 / gap` off the diagonal of a square `dims` matrix, 0 on it (the
    /// eigen and singular value rules' `F`; JAX's `1 / (gap + I) - I`).
    fn inverse_gaps(&self, gap: XlaOp, dims: &[i64]) -> Result<XlaOp, BuildError> {
        let eye = self.mask(EQ, dims)?;
        let safe = self.b.select(eye, self.full(1.0, dims)?, gap)?;
        let f = self.b.div(self.full(1.0, dims)?, safe)?;
        self.b.select(eye, self.full(0.0, dims)?, f)
    }
    /// The transpose of the last two dimensions.
    fn t(&self, x: XlaOp) -> Result<XlaOp, BuildError> {
        let r = self.rank as i64;
        let mut p: Vec<i64> = (0..r - 2).collect();
        p.extend([r - 1, r - 2]);
        self.b.transpose(x, &p)
    }
    /// The matrix product, batch dimensions paired.
    fn mm(&self, x: XlaOp, y: XlaOp) -> Result<XlaOp, BuildError> {
        let r = self.rank as i64;
        let batch: Vec<i64> = (0..r - 2).collect();
        let d = DotDimensionNumbers {
            lhs_batch_dims: batch.clone(),
            lhs_contracting_dims: vec![r - 1],
            rhs_batch_dims: batch,
            rhs_contracting_dims: vec![r - 2],
        };
        self.b.dot_general(x, y, &d, &[])
    }
    /// `lapack_?trsm_ffi(a, x)`: `op(a)^-1 x` (`side` L) or `x op(a)^-1` (R).
    #[allow(clippy::too_many_arguments)]
    fn trsm(
        &self,
        a: XlaOp,
        a_dims: &[i64],
        x: XlaOp,
        x_dims: &[i64],
        side: u8,
        uplo: u8,
        trans: u8,
        diag: u8,
    ) -> Result<XlaOp, BuildError> {
        let target = match self.ty {
            ElementType::F32 => "lapack_strsm_ffi",
            _ => "lapack_dtrsm_ffi",
        };
        let sa = column_major(&ArrayShape::new(self.ty, a_dims.to_vec()));
        let sx = column_major(&ArrayShape::new(self.ty, x_dims.to_vec()));
        let call = lapack_call(
            target,
            vec![Shape::Array(sa), Shape::Array(sx.clone())],
            format!("{{diag = {diag} : ui8, side = {side} : ui8, trans_x = {trans} : ui8, uplo = {uplo} : ui8}}"),
        );
        self.b.custom_call_op(call, &[a, x], &Shape::Array(sx))
    }
}

/// The zero tangent of an integer result (`info`, `ipiv`).
fn int_zeros(b: &XlaBuilder, s: &Shape) -> Result<XlaOp, BuildError> {
    let zero = b.constant_literal(&Literal::r0(0i32))?;
    match s {
        Shape::Array(a) => b.broadcast(zero, &a.dims),
        _ => Ok(zero),
    }
}

/// The call's result leaves (default layouts), which must be the tuple
/// `names` spells: `"(lu, ipiv, info)"`.
fn result_leaves(c: &CallInfo, names: &str) -> Result<Vec<Shape>, BuildError> {
    let n = names.split(',').count();
    match c.result {
        Shape::Tuple(l) if l.len() == n => Ok(l.iter().map(|s| s.with_default_layout()).collect()),
        s => Err(invalid(
            c,
            format!(
                "the result is {}, not {names}",
                hlox_hlo::shape_inference::short(s)
            ),
        )),
    }
}

fn lapack_call(target: &str, operands: Vec<Shape>, attrs: impl Into<Vec<u8>>) -> CustomCall {
    CustomCall {
        target: target.to_string(),
        operand_layout_constraints: Some(operands),
        has_side_effect: false,
        output_operand_aliasing: Vec::new(),
        schedule: CustomCallSchedule::None,
        api_version: CustomCallApiVersion::TypedFfi,
        opaque: attrs.into(),
    }
}

/// The builder of `c`'s rule for `mode` (its module is named
/// `jvp.TARGET` or `vjp.TARGET`).
fn rule_builder(c: &CallInfo, mode: Mode) -> XlaBuilder {
    XlaBuilder::new(format!("{}.{}", mode.name(), c.target))
}

/// The primal call again, as the rule's own instruction: the call's
/// operands, attributes and result.
fn primal(c: &CallInfo, b: &XlaBuilder, operands: &[XlaOp]) -> Result<XlaOp, BuildError> {
    call_target(c, b, operands, c.opaque, c.result)
}

/// A call of the call's own target on `operands` with attributes `opaque`
/// and result `result`, in LAPACK's layouts: matrices (operand 0's rank)
/// column-major, vectors (pivots, eigenvalues: one dimension fewer) and
/// the rest row-major, batch dimensions major.
fn call_target(
    c: &CallInfo,
    b: &XlaBuilder,
    operands: &[XlaOp],
    opaque: &[u8],
    result: &Shape,
) -> Result<XlaOp, BuildError> {
    let matrix_rank = match c.operands.first() {
        Some(Shape::Array(a)) => a.rank(),
        _ => 2,
    };
    let cm = |s: &Shape| match s.with_default_layout() {
        Shape::Array(a) if a.rank() >= 2 && a.rank() == matrix_rank => {
            Shape::Array(column_major(&a))
        }
        other => other,
    };
    let result = match result {
        Shape::Tuple(leaves) => Shape::Tuple(leaves.iter().map(cm).collect()),
        s => cm(s),
    };
    let call = lapack_call(c.target, c.operands.iter().map(cm).collect(), opaque);
    b.custom_call_op(call, operands, &result)
}

const EQ: ComparisonDirection = ComparisonDirection::Eq;
const GE: ComparisonDirection = ComparisonDirection::Ge;
const GT: ComparisonDirection = ComparisonDirection::Gt;
const LE: ComparisonDirection = ComparisonDirection::Le;
const LT: ComparisonDirection = ComparisonDirection::Lt;

/// `lapack_?potrf_ffi(a) -> (factor, info)`, `uplo = L`: the factor's
/// lower triangle is `L = chol(S)` with `S` the symmetric matrix of `a`'s
/// lower triangle; its strict upper triangle is `a`'s, left alone.
///
/// Forward (JAX's `cholesky_jvp_rule`): `dL = L Φ(L⁻¹ dS L⁻ᵀ)`, where `Φ`
/// keeps the lower triangle and halves the diagonal. Reverse, its
/// transpose: `P = Φ(Lᵀ L̄)`, `S̄ = L⁻ᵀ P L⁻¹`, folded back onto the lower
/// triangle `S` was read from; the upper triangle's cotangent passes
/// through.
fn potrf_rule(c: &CallInfo, mode: Mode) -> Result<Module, BuildError> {
    if char_attr(c, "uplo")? != b'L' {
        return Err(invalid(
            c,
            "the upper-triangle Cholesky (uplo = U) has no rule yet (JAX factors the lower one)",
        ));
    }
    let a_shape = matrix(c, 0)?;
    let dims = a_shape.dims.clone();
    let b = rule_builder(c, mode);
    let m = Mats::of(&b, &a_shape);
    let sa = Shape::Array(a_shape.clone());
    let info_shape = result_leaves(c, "(factor, info)")?.remove(1);
    let a = b.parameter(0, &sa, "a")?;
    // Φ: the strict lower triangle, and half the diagonal.
    let phi = |x: XlaOp| -> Result<XlaOp, BuildError> {
        let half = m.b.mul(x, m.full(0.5, &dims)?)?;
        let on_diag = m.mask(EQ, &dims)?;
        let d = m.b.select(on_diag, half, m.full(0.0, &dims)?)?;
        let strict = m.mask(GT, &dims)?;
        m.b.select(strict, x, d)
    };
    let solve = |l: XlaOp, x: XlaOp, trans: u8| m.trsm(l, &dims, x, &dims, b'L', b'L', trans, b'N');
    // The tangent of `a` (jvp) or the factor's cotangent (vjp).
    let second = b.parameter(
        1,
        &sa,
        if mode == Mode::Jvp {
            "a_dot"
        } else {
            "factor_ct"
        },
    )?;
    if mode == Mode::Vjp {
        b.parameter(2, &info_shape, "info_ct")?;
    }
    let y = primal(c, &b, &[a])?;
    let factor = b.get_tuple_element(y, 0)?;
    let l = m.keep(GE, factor, &dims)?;
    match mode {
        Mode::Jvp => {
            let da = second;
            // dS: the symmetric matrix of da's lower triangle.
            let lower = m.mask(GE, &dims)?;
            let ds = b.select(lower, da, m.t(da)?)?;
            let half_solved = solve(l, ds, b'N')?; // L⁻¹ dS
            let x = solve(l, m.t(half_solved)?, b'N')?; // L⁻¹ dS L⁻ᵀ
            let dl = m.mm(l, phi(x)?)?;
            let dfactor = b.select(lower, dl, da)?;
            let dy = b.tuple(&[dfactor, int_zeros(&b, &info_shape)?])?;
            let root = b.tuple(&[y, dy])?;
            b.build_module(root)
        }
        Mode::Vjp => {
            let ct = second;
            let lbar = m.keep(GE, ct, &dims)?;
            let p = phi(m.mm(m.t(l)?, lbar)?)?;
            let z = solve(l, p, b'T')?; // L⁻ᵀ P
            let sbar = m.t(solve(l, m.t(z)?, b'T')?)?; // L⁻ᵀ P L⁻¹
                                                       // S read a_ij (i >= j) at (i, j) and (j, i).
            let folded = b.add(sbar, m.t(sbar)?)?;
            let on_diag = m.mask(EQ, &dims)?;
            let upper = b.select(on_diag, sbar, ct)?;
            let strict = m.mask(GT, &dims)?;
            let abar = b.select(strict, folded, upper)?;
            let root = b.tuple(&[abar])?;
            b.build_module(root)
        }
    }
}

/// `lapack_?trsm_ffi(a, b) -> x`: `x = op(a)⁻¹ b` (`side = L`) or
/// `b op(a)⁻¹` (`R`), reading only `a`'s `uplo` triangle (and taking its
/// diagonal as ones when `diag = U`).
///
/// Forward: `dx = op(a)⁻¹ (db - op(dA) x)` (left) or `(db - x op(dA))
/// op(a)⁻¹` (right), `dA` the read triangle of the tangent. Reverse:
/// `b̄ = op(a)⁻ᵀ x̄` (the same solve, transposed), and `ā` the read
/// triangle of `-b̄ xᵀ` (left) or `-xᵀ b̄` (right), transposed when `op`
/// is.
fn trsm_rule(c: &CallInfo, mode: Mode) -> Result<Module, BuildError> {
    if c.operands.len() != 2 {
        return Err(invalid(
            c,
            format!(
                "a call with {} operands (an alpha): rules exist for (a, b) only, as JAX emits",
                c.operands.len()
            ),
        ));
    }
    let side = char_attr(c, "side")?;
    let uplo = char_attr(c, "uplo")?;
    let trans = char_attr(c, "trans_x")?;
    let diag = char_attr(c, "diag")?;
    let a_shape = matrix(c, 0)?;
    let b_shape = matrix(c, 1)?;
    let (ad, bd) = (a_shape.dims.clone(), b_shape.dims.clone());
    let left = side == b'L';
    let transposed = trans != b'N';
    let bld = rule_builder(c, mode);
    let m = Mats::of(&bld, &a_shape);
    // The triangle the target reads.
    let read = match (uplo == b'L', diag == b'U') {
        (true, false) => GE,
        (true, true) => GT,
        (false, false) => LE,
        (false, true) => LT,
    };
    let a = bld.parameter(0, &Shape::Array(a_shape.clone()), "a")?;
    let rhs = bld.parameter(1, &Shape::Array(b_shape.clone()), "b")?;
    let x = primal(c, &bld, &[a, rhs])?;
    match mode {
        Mode::Jvp => {
            let da = bld.parameter(2, &Shape::Array(a_shape.clone()), "a_dot")?;
            let db = bld.parameter(3, &Shape::Array(b_shape.clone()), "b_dot")?;
            let mut op_da = m.keep(read, da, &ad)?;
            if transposed {
                op_da = m.t(op_da)?;
            }
            let prod = if left {
                m.mm(op_da, x)?
            } else {
                m.mm(x, op_da)?
            };
            let r = bld.sub(db, prod)?;
            let dx = m.trsm(a, &ad, r, &bd, side, uplo, trans, diag)?;
            let root = bld.tuple(&[x, dx])?;
            bld.build_module(root)
        }
        Mode::Vjp => {
            let xbar = bld.parameter(2, &Shape::Array(b_shape.clone()), "x_ct")?;
            let flipped = if transposed { b'N' } else { b'T' };
            let bbar = m.trsm(a, &ad, xbar, &bd, side, uplo, flipped, diag)?;
            let mut g = if left {
                m.mm(bbar, m.t(x)?)?
            } else {
                m.mm(m.t(x)?, bbar)?
            };
            if transposed {
                g = m.t(g)?;
            }
            let g = bld.neg(g)?;
            let abar = m.keep(read, g, &ad)?;
            let root = bld.tuple(&[abar, bbar])?;
            bld.build_module(root)
        }
    }
}

/// The permutation of a batch of LAPACK pivot vectors (`ipiv`, 1-based row
/// interchanges applied in order) as a matrix `Pᵀ` of 0s and 1s: `Pᵀ a`
/// is `a` with its rows interchanged as `getrf` interchanged them.
///
/// A `while` loop over the `n` interchanges carries the permuted row
/// numbers (`s32[batch..., n]`); each step swaps entries `i` and
/// `ipiv[i] - 1` of every batch element by one-hot selects.
fn pivots_to_permutation(
    m: &Mats,
    ipiv: XlaOp,
    batch: &[i64],
    n: i64,
) -> Result<XlaOp, BuildError> {
    let b = m.b;
    let mut vdims = batch.to_vec();
    vdims.push(n);
    let r = vdims.len() as i64; // rank of the vectors
    let vec_shape = Shape::array(ElementType::S32, vdims.clone());
    let state_shape = Shape::Tuple(vec![
        Shape::array(ElementType::S32, Vec::new()),
        vec_shape.clone(),
        vec_shape.clone(),
    ]);
    let add = {
        let a = XlaBuilder::new("add_s32");
        let x = a.parameter(0, &Shape::array(ElementType::S32, Vec::new()), "x")?;
        let y = a.parameter(1, &Shape::array(ElementType::S32, Vec::new()), "y")?;
        let s = a.add(x, y)?;
        a.build(s)?
    };
    let cond = {
        let c = XlaBuilder::new("pivots_left");
        let st = c.parameter(0, &state_shape, "state")?;
        let i = c.get_tuple_element(st, 0)?;
        let end = c.constant_literal(&Literal::r0(n as i32))?;
        let lt = c.compare(ComparisonDirection::Lt, i, end)?;
        c.build(lt)?
    };
    let body = {
        let w = XlaBuilder::new("interchange");
        let st = w.parameter(0, &state_shape, "state")?;
        let i = w.get_tuple_element(st, 0)?;
        let perm = w.get_tuple_element(st, 1)?;
        let piv = w.get_tuple_element(st, 2)?;
        // ipiv[..., i] - 1 for every batch element, along the vector.
        let zero = w.constant_literal(&Literal::r0(0i32))?;
        let mut starts = vec![zero; batch.len()];
        starts.push(i);
        let mut sizes = batch.to_vec();
        sizes.push(1);
        let p = w.dynamic_slice(piv, &starts, &sizes)?;
        let p = w.reshape(p, batch)?;
        let one = w.constant_literal(&Literal::r0(1i32))?;
        let ones = w.broadcast(one, batch)?;
        let p = w.sub(p, ones)?;
        let bdims: Vec<i64> = (0..r - 1).collect();
        let p = w.broadcast_in_dim(p, &vdims, &bdims)?;
        let col = w.iota(&vec_shape, r - 1)?;
        let ib = w.broadcast(i, &vdims)?;
        let at_i = w.compare(ComparisonDirection::Eq, col, ib)?;
        let at_p = w.compare(ComparisonDirection::Eq, col, p)?;
        let zeros = w.broadcast(zero, &vdims)?;
        let pick = |mask: XlaOp| -> Result<XlaOp, BuildError> {
            let v = w.select(mask, perm, zeros)?;
            let z = w.constant_literal(&Literal::r0(0i32))?;
            let s = w.reduce(&[v], &[z], &add, &[r - 1])?;
            w.broadcast_in_dim(s, &vdims, &bdims)
        };
        let (vi, vp) = (pick(at_i)?, pick(at_p)?);
        let swapped = w.select(at_p, vi, perm)?;
        let swapped = w.select(at_i, vp, swapped)?;
        let next = w.add(i, one)?;
        let t = w.tuple(&[next, swapped, piv])?;
        w.build(t)?
    };
    let rows = b.iota(&vec_shape, r - 1)?;
    let start = b.constant_literal(&Literal::r0(0i32))?;
    let init = b.tuple(&[start, rows, ipiv])?;
    let done = b.while_loop(&cond, &body, init)?;
    let perm = b.get_tuple_element(done, 1)?;
    // Pᵀ[.., i, j] = (perm[.., i] == j).
    let mut mdims = vdims.clone();
    mdims.push(n);
    let pm = b.broadcast_in_dim(perm, &mdims, &(0..r).collect::<Vec<_>>())?;
    let cols = b.iota(&Shape::array(ElementType::S32, mdims.clone()), r)?;
    let hit = b.compare(ComparisonDirection::Eq, pm, cols)?;
    b.convert(hit, m.ty)
}

/// `lapack_?getrf_ffi(a) -> (lu, ipiv, info)` of square matrices: `Pᵀ a =
/// L U`, `L` unit lower (below `lu`'s diagonal), `U` upper.
///
/// Forward (JAX's `_lu_jvp_rule`): `X = L⁻¹ Pᵀ da U⁻¹`, `dL = L
/// tril(X, -1)`, `dU = triu(X) U`, `dlu = dL + dU`. Reverse, its
/// transpose: `X̄ = tril(Lᵀ L̄, -1) + triu(Ū Uᵀ)` (`L̄`, `Ū` the strict
/// lower and upper triangles of `lū`), `ā = P L⁻ᵀ X̄ U⁻ᵀ`. The pivots and
/// `info` are integers: no tangent.
fn getrf_rule(c: &CallInfo, mode: Mode) -> Result<Module, BuildError> {
    let a_shape = matrix(c, 0)?;
    let dims = a_shape.dims.clone();
    let rank = dims.len();
    let n = dims[rank - 1];
    if dims[rank - 2] != n {
        return Err(invalid(
            c,
            format!(
                "the LU of a {}x{n} matrix: rules exist for square matrices only",
                dims[rank - 2]
            ),
        ));
    }
    let batch = dims[..rank - 2].to_vec();
    let mut leaves = result_leaves(c, "(lu, ipiv, info)")?;
    let (info_shape, ipiv_shape) = (leaves.remove(2), leaves.remove(1));
    let b = rule_builder(c, mode);
    let m = Mats::of(&b, &a_shape);
    let sa = Shape::Array(a_shape.clone());
    let a = b.parameter(0, &sa, "a")?;
    let second = b.parameter(1, &sa, if mode == Mode::Jvp { "a_dot" } else { "lu_ct" })?;
    if mode == Mode::Vjp {
        b.parameter(2, &ipiv_shape, "ipiv_ct")?;
        b.parameter(3, &info_shape, "info_ct")?;
    }
    let y = primal(c, &b, &[a])?;
    let lu = b.get_tuple_element(y, 0)?;
    let ipiv = b.get_tuple_element(y, 1)?;
    // The k = n pivots, as a [batch..., n] vector.
    let pt = pivots_to_permutation(&m, ipiv, &batch, n)?;
    let eye = m.mask(EQ, &dims)?;
    let l = m.keep(GT, lu, &dims)?;
    let l = b.select(eye, m.full(1.0, &dims)?, l)?;
    let u = m.keep(LE, lu, &dims)?;
    match mode {
        Mode::Jvp => {
            let pda = m.mm(pt, second)?;
            let la = m.trsm(lu, &dims, pda, &dims, b'L', b'L', b'N', b'U')?; // L⁻¹ Pᵀ da
            let x = m.trsm(lu, &dims, la, &dims, b'R', b'U', b'N', b'N')?; // .. U⁻¹
            let dl = m.mm(l, m.keep(GT, x, &dims)?)?;
            let du = m.mm(m.keep(LE, x, &dims)?, u)?;
            let dlu = b.add(dl, du)?;
            let dy = b.tuple(&[
                dlu,
                int_zeros(&b, &ipiv_shape)?,
                int_zeros(&b, &info_shape)?,
            ])?;
            let root = b.tuple(&[y, dy])?;
            b.build_module(root)
        }
        Mode::Vjp => {
            let lbar = m.keep(GT, second, &dims)?;
            let ubar = m.keep(LE, second, &dims)?;
            let xl = m.keep(GT, m.mm(m.t(l)?, lbar)?, &dims)?;
            let xu = m.keep(LE, m.mm(ubar, m.t(u)?)?, &dims)?;
            let xbar = b.add(xl, xu)?;
            let yl = m.trsm(lu, &dims, xbar, &dims, b'L', b'L', b'T', b'U')?; // L⁻ᵀ X̄
            let ya = m.trsm(lu, &dims, yl, &dims, b'R', b'U', b'T', b'N')?; // .. U⁻ᵀ
            let abar = m.mm(m.t(pt)?, ya)?;
            let root = b.tuple(&[abar])?;
            b.build_module(root)
        }
    }
}

/// `lapack_?syevd_ffi(a) -> (v, w, info)`, attributes `uplo` and `mode`:
/// `a = V diag(w) Vᵀ`, eigenvalues ascending, eigenvectors in `V`'s
/// columns (only for `mode = V`; `N` computes the values alone).
///
/// Forward (JAX's `_eigh_jvp_rule`, distinct eigenvalues): `X = Vᵀ da V`,
/// `dw = diag(X)`, `dV = V (F ∘ X)` with `F_ij = 1 / (w_j - w_i)` off the
/// diagonal and 0 on it. Reverse, its transpose: `ā = V (diag(w̄) + F ∘
/// (Vᵀ V̄)) Vᵀ`. Like JAX's, the rule takes the whole tangent, not only
/// the triangle the target reads (`jnp.linalg.eigh` symmetrizes its input
/// before the call, so the two agree there). A values-only call (`mode =
/// N`) calls the target once more with vectors for its rule; its `v`
/// result carries no derivative.
fn syevd_rule(c: &CallInfo, mode: Mode) -> Result<Module, BuildError> {
    let a_shape = matrix(c, 0)?;
    let dims = a_shape.dims.clone();
    let rank = dims.len();
    if dims[rank - 2] != dims[rank - 1] {
        return Err(invalid(
            c,
            format!(
                "a {}x{} matrix is not square",
                dims[rank - 2],
                dims[rank - 1]
            ),
        ));
    }
    let vectors = char_attr(c, "mode")? == b'V';
    let uplo = char_attr(c, "uplo")?;
    let mut leaves = result_leaves(c, "(v, w, info)")?;
    let (info_shape, w_shape) = (leaves.remove(2), leaves.remove(1));
    let b = rule_builder(c, mode);
    let m = Mats::of(&b, &a_shape);
    let sa = Shape::Array(a_shape.clone());
    let a = b.parameter(0, &sa, "a")?;
    let y = primal(c, &b, &[a])?;
    // The eigenvectors: the primal's, or those of a call that computes them.
    let with_vectors = if vectors {
        y
    } else {
        let attrs = format!("{{mode = {} : ui8, uplo = {uplo} : ui8}}", b'V');
        call_target(c, &b, &[a], attrs.as_bytes(), c.result)?
    };
    let v = b.get_tuple_element(with_vectors, 0)?;
    let w = b.get_tuple_element(with_vectors, 1)?;
    let zeros = m.full(0.0, &dims)?;
    // F_ij = 1 / (w_j - w_i), 0 on the diagonal.
    let gap = b.sub(m.spread(w, &dims, true)?, m.spread(w, &dims, false)?)?;
    let f = m.inverse_gaps(gap, &dims)?;
    match mode {
        Mode::Jvp => {
            let da = b.parameter(1, &sa, "a_dot")?;
            let x = m.mm(m.mm(m.t(v)?, da)?, v)?;
            let dv = if vectors {
                m.mm(v, b.mul(f, x)?)?
            } else {
                zeros
            };
            let dw = m.diagonal(x, &dims)?;
            let dy = b.tuple(&[dv, dw, int_zeros(&b, &info_shape)?])?;
            let root = b.tuple(&[y, dy])?;
            b.build_module(root)
        }
        Mode::Vjp => {
            let v_ct = b.parameter(1, &sa, "v_ct")?;
            let w_ct = b.parameter(2, &w_shape, "w_ct")?;
            b.parameter(3, &info_shape, "info_ct")?;
            let mut inner = m.keep(EQ, m.spread(w_ct, &dims, true)?, &dims)?;
            if vectors {
                inner = b.add(inner, b.mul(f, m.mm(m.t(v)?, v_ct)?)?)?;
            }
            let abar = m.mm(m.mm(v, inner)?, m.t(v)?)?;
            let root = b.tuple(&[abar])?;
            b.build_module(root)
        }
    }
}

/// `lapack_?gesdd_ffi` / `lapack_?gesvd_ffi(a) -> (a, s, u, vt, info)`,
/// attribute `mode`: `a = U diag(s) Vᵀ` with `k = min(m, n)` singular
/// values; `S` gives the thin `U` (m x k) and `Vᵀ` (k x n), `A` the full
/// ones (a rule exists for square matrices only there, as in JAX), `N`
/// the values alone (the rule calls the target once more with vectors).
///
/// Forward (JAX's `_svd_jvp_rule`, real, distinct nonzero values): `D =
/// Uᵀ da V`, `ds = diag(D)`, `F_ij = 1 / (s_j² - s_i²)` off the diagonal,
/// `dU = U (F ∘ (D S + S Dᵀ))`, `dV = V (F ∘ (S D + Dᵀ S))`, and for a
/// tall matrix `dU += (I - U Uᵀ) da V S⁻¹`, for a wide one `dV += (I - V
/// Vᵀ) daᵀ U S⁻¹`. Reverse, its transpose: `H = F ∘ (Uᵀ Ū)`, `K = F ∘
/// (Vᵀ V̄)`, `D̄ = diag(s̄) + (H + Hᵀ) S + S (K + Kᵀ)`, `ā = U D̄ Vᵀ`
/// plus `(I - U Uᵀ) Ū S⁻¹ Vᵀ` (tall) or `U S⁻¹ V̄ᵀ (I - V Vᵀ)` (wide).
/// The first result is the input again (hlox's kernel leaves it there;
/// JAX does not read it): its tangent is `da`, its cotangent passes
/// through.
fn gesdd_rule(c: &CallInfo, mode: Mode) -> Result<Module, BuildError> {
    let a_shape = matrix(c, 0)?;
    let dims = a_shape.dims.clone();
    let rank = dims.len();
    let (m_rows, n_cols) = (dims[rank - 2], dims[rank - 1]);
    let k = m_rows.min(n_cols);
    let job = char_attr(c, "mode")?;
    match job {
        b'S' | b'N' => {}
        b'A' if m_rows == n_cols => {}
        b'A' => {
            return Err(invalid(
                c,
                format!(
                    "the full U and Vᵀ of a {m_rows}x{n_cols} matrix (mode A) have no rule \
                     (nor in JAX); ask for the thin ones (full_matrices=False)"
                ),
            ))
        }
        other => return Err(invalid(c, format!("mode {:?} has no rule", other as char))),
    }
    let vectors = job != b'N';
    let leaves = result_leaves(c, "(a, s, u, vt, info)")?;
    let batch = dims[..rank - 2].to_vec();
    let with = |r: i64, c: i64| -> Vec<i64> {
        let mut d = batch.clone();
        d.extend([r, c]);
        d
    };
    let (kk, mk, nk) = (with(k, k), with(m_rows, k), with(n_cols, k));
    let b = rule_builder(c, mode);
    let mt = Mats::of(&b, &a_shape);
    let sa = Shape::Array(a_shape.clone());
    let a = b.parameter(0, &sa, "a")?;
    let y = primal(c, &b, &[a])?;
    let with_vectors = if vectors {
        y
    } else {
        // The thin U and Vᵀ besides the values.
        let thin = Shape::Tuple(vec![
            sa.clone(),
            leaves[1].clone(),
            Shape::array(a_shape.ty, mk.clone()),
            Shape::array(a_shape.ty, with(k, n_cols)),
            leaves[4].clone(),
        ]);
        let attrs = format!("{{mode = {} : ui8}}", b'S');
        call_target(c, &b, &[a], attrs.as_bytes(), &thin)?
    };
    let s = b.get_tuple_element(with_vectors, 1)?;
    let u = b.get_tuple_element(with_vectors, 2)?;
    let v = mt.t(b.get_tuple_element(with_vectors, 3)?)?;
    // s_j along the rows (column j), s_i along the columns, of a `to` matrix.
    let sj = |to: &[i64]| mt.spread(s, to, true);
    let si = |to: &[i64]| mt.spread(s, to, false);
    // F_ij = 1 / ((s_j + s_i)(s_j - s_i)), 0 on the diagonal.
    let gaps = b.mul(b.add(sj(&kk)?, si(&kk)?)?, b.sub(sj(&kk)?, si(&kk)?)?)?;
    let f = mt.inverse_gaps(gaps, &kk)?;
    // `x - y (yᵀ x)`, divided by s_j column by column (`x`: `dims_x`).
    let beyond = |x: XlaOp, y: XlaOp, dims_x: &[i64]| -> Result<XlaOp, BuildError> {
        let p = b.sub(x, mt.mm(y, mt.mm(mt.t(y)?, x)?)?)?;
        b.div(p, sj(dims_x)?)
    };
    match mode {
        Mode::Jvp => {
            let da = b.parameter(1, &sa, "a_dot")?;
            let d = mt.mm(mt.mm(mt.t(u)?, da)?, v)?;
            let ds = mt.diagonal(d, &kk)?;
            let (du, dvt) = if vectors {
                let d_s = b.mul(sj(&kk)?, d)?; // D S
                let s_d = b.mul(si(&kk)?, d)?; // S D
                let mut du = mt.mm(u, b.mul(f, b.add(d_s, mt.t(d_s)?)?)?)?;
                let mut dv = mt.mm(v, b.mul(f, b.add(s_d, mt.t(s_d)?)?)?)?;
                if m_rows > n_cols {
                    du = b.add(du, beyond(mt.mm(da, v)?, u, &mk)?)?;
                }
                if n_cols > m_rows {
                    dv = b.add(dv, beyond(mt.mm(mt.t(da)?, u)?, v, &nk)?)?;
                }
                (du, mt.t(dv)?)
            } else {
                let zero = |s: &Shape| match s {
                    Shape::Array(x) => mt.full(0.0, &x.dims),
                    _ => mt.scalar(0.0),
                };
                (zero(&leaves[2])?, zero(&leaves[3])?)
            };
            let dy = b.tuple(&[da, ds, du, dvt, int_zeros(&b, &leaves[4])?])?;
            let root = b.tuple(&[y, dy])?;
            b.build_module(root)
        }
        Mode::Vjp => {
            let a_ct = b.parameter(1, &sa, "a_ct")?;
            let s_ct = b.parameter(2, &leaves[1], "s_ct")?;
            let u_ct = b.parameter(3, &leaves[2], "u_ct")?;
            let vt_ct = b.parameter(4, &leaves[3], "vt_ct")?;
            b.parameter(5, &leaves[4], "info_ct")?;
            let mut dbar = mt.keep(EQ, mt.spread(s_ct, &kk, true)?, &kk)?; // diag(s̄)
            let mut extra = None;
            if vectors {
                let vbar = mt.t(vt_ct)?;
                let h = b.mul(f, mt.mm(mt.t(u)?, u_ct)?)?;
                let kmat = b.mul(f, mt.mm(mt.t(v)?, vbar)?)?;
                dbar = b.add(dbar, b.mul(b.add(h, mt.t(h)?)?, sj(&kk)?)?)?;
                dbar = b.add(dbar, b.mul(si(&kk)?, b.add(kmat, mt.t(kmat)?)?)?)?;
                if m_rows > n_cols {
                    extra = Some(mt.mm(beyond(u_ct, u, &mk)?, mt.t(v)?)?);
                }
                if n_cols > m_rows {
                    extra = Some(mt.mm(u, mt.t(beyond(vbar, v, &nk)?)?)?);
                }
            }
            let mut abar = b.add(mt.mm(mt.mm(u, dbar)?, mt.t(v)?)?, a_ct)?;
            if let Some(e) = extra {
                abar = b.add(abar, e)?;
            }
            let root = b.tuple(&[abar])?;
            b.build_module(root)
        }
    }
}
