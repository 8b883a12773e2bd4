//! The HLO IR: modules own computations, computations own instructions.
//!
//! Architecture invariants:
//! - Inside a computation, the arena order of instructions is a topological
//!   order: every operand of an instruction comes before it. The printer
//!   prints in arena order.
//! - Inside a module, every computation comes after the computations it calls
//!   (XLA's post-order), so the entry computation is usually last.
//! - Opcode-specific attributes live in [`Op`]; names, arity, called roles
//!   and properties of each opcode live in the opcode table
//!   ([`crate::opcode`]), reached through [`Op::opcode`].
//! - Called computations live in
//!   [`Instruction::called`], in the order of [`Op::called_roles`] (for
//!   `while` that is [condition, body]; XLA's proto stores [body, condition]
//!   and `proto.rs` swaps them).

use crate::entity::PrimaryMap;
use crate::literal::Literal;
use crate::types::{ElementType, ProgramShape, Shape, ShapeIndex};

crate::entity_impl!(InstId, "inst");
crate::entity_impl!(CompId, "comp");

pub use crate::opcode::{BinaryOp, CalledRole, UnaryOp};

/// An attribute enum with its spellings: the enum, `ALL`, `name()` and
/// `from_name()` (its inverse), generated from one line per value so each
/// spelling is written once.
macro_rules! attr_enum {
    (
        $(#[$m:meta])*
        $name:ident { $( $(#[$vm:meta])* $v:ident = $s:literal ),* $(,)? }
    ) => {
        $(#[$m])*
        pub enum $name {
            $( $(#[$vm])* $v, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [$name; [$($s),*].len()] = [$($name::$v),*];
            /// The spelling in HLO text.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$v => $s,)*
                }
            }
            /// The value spelled `s` in HLO text.
            pub fn from_name(s: &str) -> Option<Self> {
                match s {
                    $($s => Some($name::$v),)*
                    _ => None,
                }
            }
        }
    };
}

attr_enum! {
    /// `direction=` of a compare.
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
    ComparisonDirection { Eq = "EQ", Ne = "NE", Ge = "GE", Gt = "GT", Le = "LE", Lt = "LT" }
}

attr_enum! {
    /// `type=` of a compare. `None` in [`Op::Compare`] means XLA's default for
    /// the operand element type (FLOAT for floats, SIGNED/UNSIGNED for integers).
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
    ComparisonType {
        Float = "FLOAT",
        TotalOrder = "TOTALORDER",
        Signed = "SIGNED",
        Unsigned = "UNSIGNED",
    }
}

attr_enum! {
    /// `fft_type=` of an fft: XLA's `FftType`. FFT and IFFT map complex to
    /// complex (IFFT scaled by 1/n); RFFT maps real to the non-negative
    /// frequencies of the last dimension (`n/2 + 1` of them); IRFFT is its
    /// inverse, complex to real of `fft_length` (scaled by 1/n).
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
    FftType { Fft = "FFT", Ifft = "IFFT", Rfft = "RFFT", Irfft = "IRFFT" }
}

impl ComparisonType {
    /// XLA's default comparison type for an element type (FLOAT for
    /// floating-point and complex types).
    pub fn default_for(ty: ElementType) -> ComparisonType {
        if ty.is_float_or_complex() {
            ComparisonType::Float
        } else if ty.is_unsigned_int() || ty.is_pred() {
            ComparisonType::Unsigned
        } else {
            ComparisonType::Signed
        }
    }
    /// The `type=` a compare stores for `given` over operands of element
    /// type `operand`: `None` when it is the default for that type, which is
    /// how XLA's text leaves it out. The one place that rule is written: the
    /// parser, the printer and proto decoding all normalize through it, so a
    /// module reads the same from text and from a proto.
    pub fn canonical(
        given: Option<ComparisonType>,
        operand: Option<ElementType>,
    ) -> Option<ComparisonType> {
        match (given, operand) {
            (Some(t), Some(ty)) if t == ComparisonType::default_for(ty) => None,
            _ => given,
        }
    }
    /// The comparison a compare performs: `given`, or the default for the
    /// operand element type when none is stored.
    pub fn resolve(given: Option<ComparisonType>, operand: ElementType) -> ComparisonType {
        given.unwrap_or_else(|| ComparisonType::default_for(operand))
    }
}

/// One dimension of a slice: `[start:limit:stride]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SliceDim {
    pub start: i64,
    pub limit: i64,
    pub stride: i64,
}

/// One dimension of a pad: `lo_hi_interior`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PadDim {
    pub lo: i64,
    pub hi: i64,
    pub interior: i64,
}

/// One dimension of a window (reduce-window, select-and-scatter, convolution).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WindowDim {
    pub size: i64,
    pub stride: i64,
    pub pad_lo: i64,
    pub pad_hi: i64,
    pub window_dilation: i64,
    pub base_dilation: i64,
    pub reversal: bool,
}

impl WindowDim {
    /// A window dimension of `size` with stride 1, no padding or dilation.
    pub fn new(size: i64) -> WindowDim {
        WindowDim {
            size,
            stride: 1,
            pad_lo: 0,
            pad_hi: 0,
            window_dilation: 1,
            base_dilation: 1,
            reversal: false,
        }
    }
}

/// XLA's `Window`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Window {
    pub dims: Vec<WindowDim>,
}

attr_enum! {
    /// Operand precision config of dot and convolution (`operand_precision=`).
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
    Precision { Default = "default", High = "high", Highest = "highest" }
}

/// XLA's `DotDimensionNumbers`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct DotDimensionNumbers {
    pub lhs_batch_dims: Vec<i64>,
    pub rhs_batch_dims: Vec<i64>,
    pub lhs_contracting_dims: Vec<i64>,
    pub rhs_contracting_dims: Vec<i64>,
}

/// XLA's `ConvolutionDimensionNumbers`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ConvDimensionNumbers {
    pub input_batch_dimension: i64,
    pub input_feature_dimension: i64,
    pub input_spatial_dimensions: Vec<i64>,
    pub kernel_input_feature_dimension: i64,
    pub kernel_output_feature_dimension: i64,
    pub kernel_spatial_dimensions: Vec<i64>,
    pub output_batch_dimension: i64,
    pub output_feature_dimension: i64,
    pub output_spatial_dimensions: Vec<i64>,
}

/// XLA's `GatherDimensionNumbers`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct GatherDimensionNumbers {
    pub offset_dims: Vec<i64>,
    pub collapsed_slice_dims: Vec<i64>,
    pub start_index_map: Vec<i64>,
    pub index_vector_dim: i64,
    pub operand_batching_dims: Vec<i64>,
    pub start_indices_batching_dims: Vec<i64>,
}

/// XLA's `ScatterDimensionNumbers`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ScatterDimensionNumbers {
    pub update_window_dims: Vec<i64>,
    pub inserted_window_dims: Vec<i64>,
    pub scatter_dims_to_operand_dims: Vec<i64>,
    pub index_vector_dim: i64,
    pub input_batching_dims: Vec<i64>,
    pub scatter_indices_batching_dims: Vec<i64>,
}

attr_enum! {
    /// `algorithm=` of rng-bit-generator.
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
    RngAlgorithm {
        Default = "rng_default",
        ThreeFry = "rng_three_fry",
        Philox = "rng_philox",
    }
}

attr_enum! {
    /// XLA's `CustomCallApiVersion` (`api_version=`).
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    CustomCallApiVersion {
        /// `void f(void* out, const void** in)`
        #[default]
        Original = "API_VERSION_ORIGINAL",
        /// `void f(void* out, const void** in, XlaCustomCallStatus* status)`
        StatusReturning = "API_VERSION_STATUS_RETURNING",
        /// `void f(void* out, const void** in, const char* opaque, size_t len, XlaCustomCallStatus*)`
        StatusReturningUnified = "API_VERSION_STATUS_RETURNING_UNIFIED",
        /// XLA FFI (typed). Parsed and printed; not callable through the C conventions.
        TypedFfi = "API_VERSION_TYPED_FFI",
    }
}

impl CustomCallApiVersion {
    /// The enum value in `xla_data.proto`.
    pub fn proto_value(self) -> i32 {
        match self {
            CustomCallApiVersion::Original => 1,
            CustomCallApiVersion::StatusReturning => 2,
            CustomCallApiVersion::StatusReturningUnified => 3,
            CustomCallApiVersion::TypedFfi => 4,
        }
    }
    pub fn from_proto_value(v: i32) -> Option<Self> {
        match v {
            0 | 1 => Some(CustomCallApiVersion::Original),
            2 => Some(CustomCallApiVersion::StatusReturning),
            3 => Some(CustomCallApiVersion::StatusReturningUnified),
            4 => Some(CustomCallApiVersion::TypedFfi),
            _ => None,
        }
    }
}

attr_enum! {
    /// XLA's `CustomCallSchedule` (`schedule=`).
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    CustomCallSchedule {
        #[default]
        None = "SCHEDULE_NONE",
        Latest = "SCHEDULE_LATEST",
        Earliest = "SCHEDULE_EARLIEST",
    }
}

/// One entry of `output_to_operand_aliasing={{0}: (1, {})}`: the result
/// subshape at `output_index` shares the buffer of operand `operand`'s
/// subshape at `operand_index`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct OutputOperandAlias {
    pub output_index: ShapeIndex,
    pub operand: i64,
    pub operand_index: ShapeIndex,
}

/// Everything a custom call carries besides operands and result shape.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct CustomCall {
    /// `custom_call_target="..."`: the name the target is registered under.
    pub target: String,
    /// Opaque bytes given to the target verbatim (XLA prints and stores them
    /// as the instruction's `backend_config`). Any byte, NUL included.
    pub opaque: Vec<u8>,
    pub has_side_effect: bool,
    pub output_operand_aliasing: Vec<OutputOperandAlias>,
    pub schedule: CustomCallSchedule,
    pub api_version: CustomCallApiVersion,
    /// `operand_layout_constraints={f32[2]{0}, ...}`: one shape per operand,
    /// when the call constrains operand layouts.
    pub operand_layout_constraints: Option<Vec<Shape>>,
}

impl CustomCall {
    /// The shapes, with layouts, of the buffers a target is called with,
    /// given the call's operand shapes and result shape. This is XLA's
    /// layout assignment for custom calls: a call with
    /// `operand_layout_constraints` gets its operands in those layouts and
    /// its result in the layout of its own shape (JAX's LAPACK targets
    /// rely on this for column-major matrices); a call without gets every
    /// buffer in the default layout. The compilers insert the copies
    /// (`hlox_passes::BoundaryLayouts`); the evaluator relays out around
    /// the call.
    pub fn buffer_shapes(&self, operands: &[&Shape], result: &Shape) -> (Vec<Shape>, Shape) {
        match &self.operand_layout_constraints {
            Some(c) if c.len() == operands.len() => (c.clone(), result.clone()),
            _ => (
                operands.iter().map(|s| s.with_default_layout()).collect(),
                result.with_default_layout(),
            ),
        }
    }
}

attr_enum! {
    /// `kind=` of a fusion instruction.
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
    FusionKind { Loop = "kLoop", Input = "kInput", Output = "kOutput", Custom = "kCustom" }
}

/// Which devices take part in a collective (`replica_groups=`). hlox runs a
/// module on one device, so the only id a group may name is 0; shape
/// inference rejects any other with the number of devices it would need.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ReplicaGroups {
    /// `{{0,1},{2,3}}`; empty (`{}`) means one group of every device.
    List(Vec<Vec<i64>>),
    /// `[groups,size]<=[reshape_dims]T(perm)`: the ids `0..groups*size`
    /// reshaped to `reshape_dims`, transposed by `perm` (when given), and
    /// read row-major into `groups` groups of `size`.
    Iota {
        groups: i64,
        size: i64,
        reshape_dims: Vec<i64>,
        perm: Vec<i64>,
    },
}

impl Default for ReplicaGroups {
    fn default() -> Self {
        ReplicaGroups::List(Vec::new())
    }
}

impl ReplicaGroups {
    /// The groups as lists of device ids (an iota form expanded). Empty
    /// means every device forms one group. `None` when the iota form is
    /// inconsistent (its dimensions do not multiply to `groups*size`, or
    /// `perm` is not a permutation of them) or would list more than 2^20 ids.
    pub fn expand(&self) -> Option<Vec<Vec<i64>>> {
        match self {
            ReplicaGroups::List(g) => Some(g.clone()),
            ReplicaGroups::Iota {
                groups,
                size,
                reshape_dims,
                perm,
            } => {
                let n = groups.checked_mul(*size)?;
                if *groups < 0 || *size < 0 || n > 1 << 20 || *groups > 1 << 20 {
                    return None;
                }
                let dims_n = reshape_dims.iter().try_fold(1i64, |a, &d| {
                    if d < 0 {
                        None
                    } else {
                        a.checked_mul(d)
                    }
                })?;
                if dims_n != n {
                    return None;
                }
                let rank = reshape_dims.len();
                let perm: Vec<usize> = if perm.is_empty() {
                    (0..rank).collect()
                } else {
                    let p: Vec<usize> = perm.iter().map(|&x| x as usize).collect();
                    let mut seen = vec![false; rank];
                    for &x in &p {
                        if x >= rank || std::mem::replace(&mut seen[x], true) {
                            return None;
                        }
                    }
                    if p.len() != rank {
                        return None;
                    }
                    p
                };
                // Row-major strides of the reshaped iota, read in the
                // transposed order.
                let mut strides = vec![1i64; rank];
                for d in (0..rank.saturating_sub(1)).rev() {
                    strides[d] = strides[d + 1] * reshape_dims[d + 1];
                }
                let tdims: Vec<i64> = perm.iter().map(|&p| reshape_dims[p]).collect();
                let mut ids = Vec::with_capacity(n as usize);
                let mut idx = vec![0i64; rank];
                for _ in 0..n {
                    ids.push(
                        idx.iter()
                            .zip(&perm)
                            .map(|(&i, &p)| i * strides[p])
                            .sum::<i64>(),
                    );
                    for d in (0..rank).rev() {
                        idx[d] += 1;
                        if idx[d] < tdims[d] {
                            break;
                        }
                        idx[d] = 0;
                    }
                }
                if *size == 0 {
                    return Some(vec![Vec::new(); *groups as usize]);
                }
                Some(ids.chunks(*size as usize).map(|c| c.to_vec()).collect())
            }
        }
    }
}

/// Attributes every collective over replica groups shares.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Collective {
    pub replica_groups: ReplicaGroups,
    /// `channel_id=`: set for cross-partition collectives.
    pub channel_id: Option<i64>,
    /// `use_global_device_ids=true`: group entries are global device ids.
    pub use_global_device_ids: bool,
    /// `constrain_layout=true`: the layouts given must be kept.
    pub constrain_layout: bool,
}

/// A convolution's attributes: XLA's `window`, `dim_labels`,
/// `feature_group_count`, `batch_group_count` and `operand_precision`.
#[derive(Clone, PartialEq, Debug)]
pub struct Convolution {
    pub window: Window,
    pub dnums: ConvDimensionNumbers,
    /// Groups of input features (1: an ordinary convolution).
    pub feature_group_count: i64,
    /// Groups of the batch (1: an ordinary convolution).
    pub batch_group_count: i64,
    pub precision: Vec<Precision>,
}

/// An opcode together with its opcode-specific attributes.
#[derive(Clone, PartialEq, Debug)]
pub enum Op {
    Parameter {
        number: u64,
    },
    Constant {
        literal: Literal,
    },
    Iota {
        dimension: i64,
    },
    Unary(UnaryOp),
    Binary(BinaryOp),
    Compare {
        direction: ComparisonDirection,
        cmp_type: Option<ComparisonType>,
    },
    Select,
    Clamp,
    Convert,
    BitcastConvert,
    ReducePrecision {
        exponent_bits: i32,
        mantissa_bits: i32,
    },
    Broadcast {
        dimensions: Vec<i64>,
    },
    Reshape,
    Bitcast,
    Transpose {
        dimensions: Vec<i64>,
    },
    Reverse {
        dimensions: Vec<i64>,
    },
    Slice {
        dims: Vec<SliceDim>,
    },
    DynamicSlice {
        sizes: Vec<i64>,
    },
    DynamicUpdateSlice,
    Concatenate {
        dimension: i64,
    },
    Pad {
        dims: Vec<PadDim>,
    },
    Dot {
        dnums: DotDimensionNumbers,
        precision: Vec<Precision>,
    },
    /// called: [to_apply]. Variadic: N inputs then N init values.
    Reduce {
        dimensions: Vec<i64>,
    },
    /// called: [to_apply]. Variadic: N inputs then N init values.
    ReduceWindow {
        window: Window,
    },
    /// operands: operand, source, init; called: [select, scatter].
    SelectAndScatter {
        window: Window,
    },
    Convolution(Convolution),
    Gather {
        dnums: GatherDimensionNumbers,
        slice_sizes: Vec<i64>,
        indices_are_sorted: bool,
    },
    /// called: [to_apply]. Operands: N inputs, indices, N updates.
    Scatter {
        dnums: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
    },
    /// called: [comparator].
    Sort {
        dimension: i64,
        is_stable: bool,
    },
    /// The `k` largest (or smallest) elements along the last dimension and
    /// their s32 indices: result `(T[..., k], s32[..., k])`. Ties keep the
    /// lower index first.
    TopK {
        k: i64,
        largest: bool,
    },
    /// A discrete Fourier transform over the last `fft_length.len()` (1 to
    /// 3) dimensions; `fft_length` is the transform's length in each, which
    /// for IRFFT is the real result's (the operand's last dimension holds
    /// `fft_length.last() / 2 + 1` frequencies).
    Fft {
        fft_type: FftType,
        fft_length: Vec<i64>,
    },
    Tuple,
    GetTupleElement {
        index: i64,
    },
    /// called: [to_apply].
    Call,
    /// called: [condition, body].
    While,
    /// called: branch computations in order. With a PRED selector the first
    /// is the true computation and the second the false computation.
    Conditional,
    /// called: [to_apply].
    Map {
        dimensions: Vec<i64>,
    },
    Copy,
    /// called: any computations the target is given (`called_computations=`).
    CustomCall(Box<CustomCall>),
    RngBitGenerator {
        algorithm: RngAlgorithm,
    },
    OptimizationBarrier,
    AfterAll,
    /// called: [fused computation].
    Fusion {
        kind: FusionKind,
    },
    // Collectives. On one device each has a single participant: the
    // `single-device-collectives` pass rewrites them to copies and
    // constants before code generation, and the evaluator computes them
    // directly. On N devices `hlox_passes::spmd` rewrites them into
    // `hlox.collective` custom calls.
    /// called: [to_apply]. Variadic: N operands give an N-tuple.
    AllReduce(Collective),
    /// Concatenates each participant's operand along `dimension`.
    AllGather {
        collective: Collective,
        dimension: i64,
    },
    /// called: [to_apply]. All-reduce, then each participant keeps its
    /// slice of `dimension`.
    ReduceScatter {
        collective: Collective,
        dimension: i64,
    },
    /// With `split_dimension`, one array split among the participants;
    /// without it, N operands (one per participant) and an N-tuple.
    AllToAll {
        collective: Collective,
        split_dimension: Option<i64>,
    },
    /// Sends the operand from `source` to `target` for each pair; a device
    /// that no pair targets gets zeros.
    CollectivePermute {
        channel_id: Option<i64>,
        source_target_pairs: Vec<(i64, i64)>,
    },
    /// The first participant's operand, to every participant of its group.
    CollectiveBroadcast(Collective),
    /// `u32[]`: this device's replica number (0 here).
    ReplicaId,
    /// `u32[]`: this device's partition number (0 here).
    PartitionId,
}

impl Op {
    pub fn as_custom_call(&self) -> Option<&CustomCall> {
        match self {
            Op::CustomCall(c) => Some(c),
            _ => None,
        }
    }
}

/// `metadata={op_type="..." op_name="..." source_file="..." source_line=N}`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct OpMetadata {
    pub op_type: String,
    pub op_name: String,
    pub source_file: String,
    pub source_line: i32,
}

impl OpMetadata {
    pub fn is_empty(&self) -> bool {
        self.op_type.is_empty()
            && self.op_name.is_empty()
            && self.source_file.is_empty()
            && self.source_line == 0
    }
}

/// One HLO instruction.
#[derive(Clone, PartialEq, Debug)]
pub struct Instruction {
    /// Name, unique within the module (without XLA's optional `%`).
    pub name: String,
    pub op: Op,
    /// The result shape, always explicit (as in HLO text).
    pub shape: Shape,
    pub operands: Vec<InstId>,
    /// Computations this instruction calls, in the order of [`Op::called_roles`].
    pub called: Vec<CompId>,
    pub metadata: OpMetadata,
    /// `frontend_attributes={key="value",...}`, in the order given.
    pub frontend_attributes: Vec<(String, String)>,
    /// `sharding={...}`, kept as its raw text (hlox runs on one device).
    pub sharding: Option<String>,
    /// `backend_config=` of non-custom-call instructions, raw. (A custom
    /// call's backend_config is its opaque: [`CustomCall::opaque`].)
    pub backend_config: Option<String>,
}

impl Instruction {
    pub fn new(
        name: impl Into<String>,
        op: Op,
        shape: Shape,
        operands: Vec<InstId>,
    ) -> Instruction {
        Instruction {
            name: name.into(),
            op,
            shape,
            operands,
            called: Vec::new(),
            metadata: OpMetadata::default(),
            frontend_attributes: Vec::new(),
            sharding: None,
            backend_config: None,
        }
    }
    pub fn opcode_name(&self) -> &'static str {
        self.op.name()
    }
}

/// A computation: a DAG of instructions with parameters and a root.
#[derive(Clone, PartialEq, Debug)]
pub struct Computation {
    pub name: String,
    pub instructions: PrimaryMap<InstId, Instruction>,
    /// `params[i]` is the instruction `parameter(i)`.
    pub params: Vec<InstId>,
    pub root: InstId,
    /// `execution_thread="..."` when not the main thread.
    pub execution_thread: Option<String>,
}

impl Computation {
    pub fn inst(&self, id: InstId) -> &Instruction {
        &self.instructions[id]
    }
    pub fn root_inst(&self) -> &Instruction {
        &self.instructions[self.root]
    }
    /// The signature of this computation.
    pub fn program_shape(&self) -> ProgramShape {
        ProgramShape {
            parameters: self
                .params
                .iter()
                .map(|&p| self.instructions[p].shape.clone())
                .collect(),
            parameter_names: self
                .params
                .iter()
                .map(|&p| self.instructions[p].name.clone())
                .collect(),
            result: self.root_inst().shape.clone(),
        }
    }
    /// Users of each instruction, in arena order.
    pub fn users(&self) -> PrimaryMap<InstId, Vec<InstId>> {
        let mut users: PrimaryMap<InstId, Vec<InstId>> = PrimaryMap::new();
        for _ in 0..self.instructions.len() {
            users.push(Vec::new());
        }
        for (id, inst) in self.instructions.iter() {
            for &op in &inst.operands {
                if users.is_valid(op) && !users[op].contains(&id) {
                    users[op].push(id);
                }
            }
        }
        users
    }
}

/// Whether an entry parameter alias may or must be honoured.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AliasKind {
    MayAlias,
    MustAlias,
}

/// One entry of the module's `input_output_alias={ {0}: (0, {}, may-alias) }`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InputOutputAlias {
    pub output_index: ShapeIndex,
    pub parameter_number: i64,
    pub parameter_index: ShapeIndex,
    pub kind: AliasKind,
}

/// An HLO module.
#[derive(Clone, PartialEq, Debug)]
pub struct Module {
    pub name: String,
    /// In post-order: callees before callers.
    pub computations: PrimaryMap<CompId, Computation>,
    pub entry: CompId,
    pub input_output_alias: Vec<InputOutputAlias>,
    pub is_scheduled: bool,
    /// The module's `frontend_attributes={key=value,...}`, in the order
    /// given. JAX keeps its device mesh here (`xla.sdy.meshes`), which
    /// the SPMD expansion (`hlox_hlo::sharding`) reads.
    pub frontend_attributes: Vec<(String, String)>,
}

impl Module {
    pub fn comp(&self, id: CompId) -> &Computation {
        &self.computations[id]
    }
    /// The first instruction that produces or reads complex numbers
    /// (`c64`/`c128`, at any tuple depth), with its computation and the
    /// complex type: what the engines that do not handle complex numbers
    /// yet (the compiled backends, the transformations) name when they
    /// refuse a module.
    pub fn first_complex_instruction(&self) -> Option<(&Computation, &Instruction, ElementType)> {
        fn complex_in(s: &Shape) -> Option<ElementType> {
            s.leaves()
                .into_iter()
                .find_map(|(_, l)| l.element_type().filter(|t| t.is_complex()))
        }
        for c in self.computations.values() {
            for inst in c.instructions.values() {
                let ty = complex_in(&inst.shape).or_else(|| {
                    inst.operands
                        .iter()
                        .filter_map(|&o| c.instructions.get(o))
                        .find_map(|o| complex_in(&o.shape))
                });
                if let Some(ty) = ty {
                    return Some((c, inst, ty));
                }
            }
        }
        None
    }
    pub fn entry_computation(&self) -> &Computation {
        &self.computations[self.entry]
    }
    /// `entry_computation_layout`: the entry computation's signature.
    pub fn entry_computation_layout(&self) -> ProgramShape {
        self.entry_computation().program_shape()
    }
    pub fn find_computation(&self, name: &str) -> Option<CompId> {
        self.computations
            .iter()
            .find(|(_, c)| c.name == name)
            .map(|(id, _)| id)
    }
}
