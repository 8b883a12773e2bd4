//! Collectives across GPUs through NCCL (cudarc's `nccl` bindings, the
//! `nccl` feature of this crate; libnccl is loaded at run time).
//!
//! One device per GPU in one process, each device a thread running the
//! program on its own stream ([`crate::spmd::CudaDevices`]). A collective
//! of the program is a call of the `hlox.collective` target
//! (`hlox_cuda::spmd`); on a GPU it comes here
//! ([`run_as_current_device`]): the device threads first meet at a host
//! rendezvous (the Host's, `hlox_cpu_runtime::collectives::InProcess`:
//! a device that failed stops the others there, with its error, before
//! they enter NCCL, and one that never arrives is named by the timeout),
//! then each enqueues its part on its stream ([`enqueue`]):
//!
//! - all-reduce: `ncclAllReduce` per operand, one NCCL group (sum, prod,
//!   max, min; and/or of `pred` as min/max; f16 and bf16 included);
//! - all-gather and reduce-scatter: `ncclAllGather` / `ncclReduceScatter`,
//!   with a strided copy (`cuMemcpy2DAsync`) after or before when the
//!   dimension is not the leading one (NCCL concatenates in rank order);
//! - all-to-all: grouped `ncclSend`/`ncclRecv` of each member's piece
//!   (packed and unpacked by strided copies), or of each operand (tuple
//!   form);
//! - collective-permute: grouped `ncclSend`/`ncclRecv` per pair on the
//!   communicator of every device; a device no pair targets gets zeros;
//! - collective-broadcast: `ncclBroadcast` from the group's first member;
//! - replica-id / partition-id: the value written from the host.
//!
//! Groups: a communicator over all devices (`ncclCommInitAll`), and one
//! per other group the program's collectives name, made when the program
//! is loaded ([`NcclComms::open`]; members ranked in group order). The
//! CUDA bindings this crate builds with (CUDA 13) have no
//! `ncclCommSplit`, so sub-groups get their own `ncclCommInitAll`.
//!
//! Compiled and unit-tested without a GPU; not yet run on one (no GPU was
//! lent where this was written): scripts/gpu_session.sh runs its tests on
//! the first lent GPU.

use cudarc::driver::CudaContext;
use cudarc::nccl::{result, sys};
use hlox_cpu_runtime::collectives::{CollectiveError, DeviceContext};
use hlox_hlo::sharding::{CollectiveDesc, CollectiveKind, ReduceKind, Topology};
use hlox_hlo::ElementType;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;

/// Why NCCL cannot run a collective, or opening the GPUs failed.
#[derive(Debug, thiserror::Error)]
pub enum NcclError {
    #[error(
        "no CUDA driver found (libcuda.so): NCCL collectives need an NVIDIA GPU and its driver"
    )]
    NoDriver,
    #[error(
        "NCCL (libnccl.so.2) is not installed: install it (apt-get install libnccl2, or the \
         nvidia-nccl-cu12 wheel with its lib directory on LD_LIBRARY_PATH)"
    )]
    NoNccl,
    #[error("{want} GPU device(s) asked for, but this machine has {have}: run with --devices {have} or fewer, or on a machine with more GPUs")]
    TooFewGpus { want: usize, have: usize },
    #[error("no devices: an NCCL communicator needs at least one GPU")]
    NoDevices,
    #[error("CUDA device {device}: {what} failed: {message}")]
    Driver {
        device: usize,
        what: &'static str,
        message: String,
    },
    #[error("NCCL {what} failed: {message}")]
    Nccl { what: &'static str, message: String },
    #[error("collective {collective}: NCCL does not run it: {why}")]
    Unsupported { collective: String, why: String },
    #[error("collective {collective}: {message}")]
    Invalid { collective: String, message: String },
    /// The host rendezvous before the NCCL call failed: another device
    /// failed, or one did not arrive.
    #[error("{0}")]
    Collective(#[from] CollectiveError),
}

/// NCCL's reduction for an HLO one on elements of `ty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcclReduce {
    Sum,
    Prod,
    Max,
    Min,
}

/// NCCL's element type for `ty` in reductions (data movement is bytes).
fn nccl_type(ty: ElementType) -> Option<sys::ncclDataType_t> {
    use sys::ncclDataType_t as D;
    use ElementType as T;
    Some(match ty {
        T::F32 => D::ncclFloat32,
        T::F64 => D::ncclFloat64,
        T::F16 => D::ncclFloat16,
        T::Bf16 => D::ncclBfloat16,
        T::S8 => D::ncclInt8,
        T::U8 | T::Pred => D::ncclUint8,
        T::S32 => D::ncclInt32,
        T::U32 => D::ncclUint32,
        T::S64 => D::ncclInt64,
        T::U64 => D::ncclUint64,
        _ => return None,
    })
}

/// The NCCL reduction that computes `r` on `ty`, or why there is none
/// (and, or, xor are bitwise: NCCL has them only as min and max of
/// `pred`).
pub fn reduce_op(desc: &CollectiveDesc, r: ReduceKind) -> Result<NcclReduce, NcclError> {
    let unsupported = |why: String| NcclError::Unsupported {
        collective: desc.name.clone(),
        why,
    };
    if nccl_type(desc.ty).is_none() {
        return Err(unsupported(format!(
            "a reduction of {} elements (NCCL reduces f16, bf16, f32, f64, s8, u8, s32, u32, \
             s64, u64 and pred)",
            desc.ty.name()
        )));
    }
    Ok(match (r, desc.ty) {
        (ReduceKind::Add, _) => NcclReduce::Sum,
        (ReduceKind::Mul, _) => NcclReduce::Prod,
        (ReduceKind::Max, _) | (ReduceKind::Or, ElementType::Pred) => NcclReduce::Max,
        (ReduceKind::Min, _) | (ReduceKind::And, ElementType::Pred) => NcclReduce::Min,
        (other, ty) => {
            return Err(unsupported(format!(
                "the {} reduction of {} elements (NCCL has sum, prod, max, min; and/or only \
                 of pred)",
                other.name(),
                ty.name()
            )))
        }
    })
}

/// Checks, without a GPU, that NCCL can run `desc` here: its reduction
/// and element type; the split dimension of the kinds that split.
pub fn check(desc: &CollectiveDesc) -> Result<(), NcclError> {
    let invalid = |message: String| NcclError::Invalid {
        collective: desc.name.clone(),
        message,
    };
    match &desc.kind {
        CollectiveKind::AllReduce(r) => reduce_op(desc, *r).map(|_| ()),
        CollectiveKind::ReduceScatter { dim, reduce } => {
            reduce_op(desc, *reduce)?;
            let dims = desc.operands.first().cloned().unwrap_or_default();
            split(&dims, *dim, 1).map_err(invalid).map(|_| ())
        }
        CollectiveKind::AllGather { dim } | CollectiveKind::AllToAll { split: Some(dim) } => {
            let dims = desc.operands.first().cloned().unwrap_or_default();
            split(&dims, *dim, 1).map_err(invalid).map(|_| ())
        }
        _ => Ok(()),
    }
}

/// (outer count, bytes of one outer step) of a row-major array of `dims`
/// sliced along `dim`.
fn split(dims: &[i64], dim: i64, es: usize) -> Result<(usize, usize), String> {
    let d = usize::try_from(dim)
        .ok()
        .filter(|&d| d < dims.len())
        .ok_or_else(|| format!("dimension {dim} out of range for rank {}", dims.len()))?;
    let outer: i64 = dims[..d].iter().product();
    let rest: i64 = dims[d..].iter().product();
    Ok((outer.max(0) as usize, rest.max(0) as usize * es))
}

/// An NCCL communicator handle (destroyed on drop).
struct RawComm(sys::ncclComm_t);

// SAFETY: an NCCL communicator may be used from any thread, one call at a
// time per communicator; each is used by its own device's thread only.
unsafe impl Send for RawComm {}
unsafe impl Sync for RawComm {}

impl Drop for RawComm {
    fn drop(&mut self) {
        // SAFETY: made by ncclCommInitAll, destroyed once.
        let _ = unsafe { result::comm_destroy(self.0) };
    }
}

fn nccl(what: &'static str) -> impl Fn(result::NcclError) -> NcclError {
    move |e| NcclError::Nccl {
        what,
        message: format!("{e:?}"),
    }
}

fn driver(device: usize, what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> NcclError {
    move |e| NcclError::Driver {
        device,
        what,
        message: e.to_string(),
    }
}

/// Whether libnccl can be loaded on this machine.
pub fn nccl_present() -> bool {
    // SAFETY: only tries to dlopen libnccl; nothing is called.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// `ncclCommInitAll` over GPUs `devices` (rank i is `devices[i]`).
fn init_all(devices: &[i64]) -> Result<Vec<RawComm>, NcclError> {
    let ordinals: Vec<i32> = devices.iter().map(|&d| d as i32).collect();
    let mut comms = vec![std::ptr::null_mut(); ordinals.len()];
    // SAFETY: one handle slot per ordinal.
    unsafe { result::comm_init_all(comms.as_mut_ptr(), ordinals.len() as i32, ordinals.as_ptr()) }
        .map_err(nccl("ncclCommInitAll"))?;
    Ok(comms.into_iter().map(RawComm).collect())
}

/// The NCCL communicators of N GPUs (GPU d is device d): one over all of
/// them, one per other group of the program's collectives.
pub struct NcclComms {
    devices: usize,
    world: Vec<RawComm>,
    groups: HashMap<Vec<i64>, Vec<RawComm>>,
}

impl NcclComms {
    /// Opens GPUs `0..devices` with a communicator over all of them and
    /// one per group of `collectives` that is not all of them in order.
    /// Checks every collective first ([`check`]), then for libcuda,
    /// libnccl and enough GPUs, saying which is missing.
    pub fn open(devices: usize, collectives: &[CollectiveDesc]) -> Result<NcclComms, NcclError> {
        if devices == 0 {
            return Err(NcclError::NoDevices);
        }
        collectives.iter().try_for_each(check)?;
        if !crate::runtime::driver_present() {
            return Err(NcclError::NoDriver);
        }
        if !nccl_present() {
            return Err(NcclError::NoNccl);
        }
        let have = CudaContext::device_count().map_err(driver(0, "counting devices"))?;
        let have = usize::try_from(have).unwrap_or(0);
        if have < devices {
            return Err(NcclError::TooFewGpus {
                want: devices,
                have,
            });
        }
        let whole: Vec<i64> = (0..devices as i64).collect();
        let world = init_all(&whole)?;
        let mut groups = HashMap::new();
        for d in collectives {
            if matches!(
                d.kind,
                CollectiveKind::Permute { .. }
                    | CollectiveKind::ReplicaId
                    | CollectiveKind::PartitionId
            ) {
                continue;
            }
            for g in &d.groups {
                if *g != whole && g.len() > 1 && !groups.contains_key(g) {
                    groups.insert(g.clone(), init_all(g)?);
                }
            }
        }
        Ok(NcclComms {
            devices,
            world,
            groups,
        })
    }

    pub fn devices(&self) -> usize {
        self.devices
    }

    /// The communicator of group `g` at member position `p`; `None` for a
    /// group of one (nothing to communicate).
    fn of_group(
        &self,
        desc: &CollectiveDesc,
        g: &[i64],
        p: usize,
    ) -> Result<Option<sys::ncclComm_t>, NcclError> {
        if g.len() == 1 {
            return Ok(None);
        }
        let whole = g.len() == self.devices && g.iter().enumerate().all(|(i, &d)| d == i as i64);
        let comms = if whole {
            Some(&self.world)
        } else {
            self.groups.get(g)
        };
        comms
            .and_then(|c| c.get(p))
            .map(|c| Some(c.0))
            .ok_or_else(|| NcclError::Invalid {
                collective: desc.name.clone(),
                message: format!("no NCCL communicator for group {g:?} (not opened at load)"),
            })
    }
}

/// The device a thread runs as, on a GPU.
struct NcclDevice {
    comms: Arc<NcclComms>,
    ctx: DeviceContext,
}

thread_local! {
    static CURRENT: RefCell<Option<NcclDevice>> = const { RefCell::new(None) };
}

/// Runs `f` as GPU device `ctx.rank` with `comms` as this thread's NCCL
/// communicators and `ctx.comm` as the host rendezvous before each NCCL
/// call.
pub fn with_comms<R>(comms: Arc<NcclComms>, ctx: DeviceContext, f: impl FnOnce() -> R) -> R {
    let prev = CURRENT.with(|c| c.replace(Some(NcclDevice { comms, ctx })));
    struct Restore(Option<NcclDevice>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let p = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = p);
        }
    }
    let _restore = Restore(prev);
    f()
}

/// Runs collective `desc` as this thread's GPU device, on `stream`, with
/// XLA's buffers (operand leaves, then result leaves); `None` where this
/// thread has no NCCL communicators (not a GPU device thread).
///
/// # Safety
/// `buffers` holds one device pointer per operand and result leaf, of the
/// sizes the descriptor gives ([`CollectiveDesc::buffer_sizes`]); `stream`
/// is the device's stream.
pub unsafe fn run_as_current_device(
    desc: &CollectiveDesc,
    stream: hlox_ffi::CUstream,
    buffers: *mut *mut c_void,
) -> Option<Result<(), NcclError>> {
    let (comms, ctx) = CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .map(|d| (d.comms.clone(), d.ctx.clone()))
    })?;
    let (me, topology, control) = (ctx.rank, ctx.topology, ctx.comm);
    let (in_lens, out_lens) = desc.buffer_sizes(me);
    // SAFETY: as the caller promises.
    let ptr = |k: usize| unsafe { *buffers.add(k) } as u64;
    let ins: Vec<u64> = (0..in_lens.len()).map(ptr).collect();
    let outs: Vec<u64> = (0..out_lens.len())
        .map(|k| ptr(in_lens.len() + k))
        .collect();
    let run = || -> Result<(), NcclError> {
        if !matches!(
            desc.kind,
            CollectiveKind::ReplicaId | CollectiveKind::PartitionId
        ) {
            // Every device arrives before any enters NCCL.
            control.all_gather(me, &desc.name, &[])?;
        }
        // SAFETY: as the caller promises.
        unsafe {
            enqueue(
                desc,
                &Place { me, topology },
                &comms,
                stream,
                &Buffers {
                    ins: &ins,
                    in_lens: &in_lens,
                    outs: &outs,
                    out_lens: &out_lens,
                },
            )
        }
    };
    Some(run())
}

/// Where a device is: its global rank and the run's topology.
pub struct Place {
    pub me: usize,
    pub topology: Topology,
}

/// A collective's device buffers and their byte sizes.
pub struct Buffers<'a> {
    pub ins: &'a [u64],
    pub in_lens: &'a [usize],
    pub outs: &'a [u64],
    pub out_lens: &'a [usize],
}

/// A strided copy: `height` rows of `width` bytes, rows `spitch` apart
/// from byte `src` of the source and `dpitch` apart from byte `dst` of the
/// destination (one `cuMemcpy2DAsync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strided {
    pub dst: usize,
    pub dpitch: usize,
    pub src: usize,
    pub spitch: usize,
    pub width: usize,
    pub height: usize,
}

/// Rows of `parts` pieces of `piece` bytes (`outer` rows) into `parts`
/// blocks, block j holding piece j of every row: NCCL's layout (it
/// scatters and sends whole blocks) from the array's, before a
/// reduce-scatter or the sends of an all-to-all along a dimension that is
/// not the leading one.
pub fn pack_blocks(parts: usize, outer: usize, piece: usize) -> Vec<Strided> {
    (0..parts)
        .map(|j| Strided {
            dst: j * outer * piece,
            dpitch: piece,
            src: j * piece,
            spitch: parts * piece,
            width: piece,
            height: outer,
        })
        .collect()
}

/// The reverse of [`pack_blocks`]: `parts` blocks of `outer` rows of
/// `piece` bytes into rows of `parts` pieces, after an all-gather (block j
/// is member j's contribution) or the receives of an all-to-all.
pub fn unpack_blocks(parts: usize, outer: usize, piece: usize) -> Vec<Strided> {
    (0..parts)
        .map(|j| Strided {
            dst: j * piece,
            dpitch: parts * piece,
            src: j * outer * piece,
            spitch: piece,
            width: piece,
            height: outer,
        })
        .collect()
}

/// [`Strided`] copies from device buffer `src` to `dst` on `stream`.
unsafe fn copy_strided(
    stream: sys::cudaStream_t,
    dst: u64,
    src: u64,
    copies: &[Strided],
) -> Result<(), NcclError> {
    for s in copies {
        // SAFETY: the caller's buffers hold the copies' rows.
        unsafe {
            copy_2d(
                stream,
                (dst + s.dst as u64, s.dpitch),
                (src + s.src as u64, s.spitch),
                s.width,
                s.height,
            )?
        };
    }
    Ok(())
}

/// A strided device-to-device copy on `stream`: `height` rows of `width`
/// bytes, rows `spitch` apart at `src` and `dpitch` apart at `dst`.
unsafe fn copy_2d(
    stream: sys::cudaStream_t,
    (dst, dpitch): (u64, usize),
    (src, spitch): (u64, usize),
    width: usize,
    height: usize,
) -> Result<(), NcclError> {
    use cudarc::driver::sys as d;
    if width == 0 || height == 0 {
        return Ok(());
    }
    // SAFETY: all-zero is a valid (empty) copy description.
    let mut c: d::CUDA_MEMCPY2D = unsafe { std::mem::zeroed() };
    c.srcMemoryType = d::CUmemorytype::CU_MEMORYTYPE_DEVICE;
    c.srcDevice = src;
    c.srcPitch = spitch;
    c.dstMemoryType = d::CUmemorytype::CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dst;
    c.dstPitch = dpitch;
    c.WidthInBytes = width;
    c.Height = height;
    // SAFETY: the caller gives live buffers holding these rows.
    unsafe { d::cuMemcpy2DAsync_v2(&c, stream as d::CUstream) }
        .result()
        .map_err(driver(0, "a strided copy (cuMemcpy2DAsync)"))
}

/// Stream-ordered scratch memory, freed (in stream order) on drop.
struct Scratch {
    ptr: u64,
    stream: sys::cudaStream_t,
}

impl Scratch {
    fn new(stream: sys::cudaStream_t, bytes: usize) -> Result<Scratch, NcclError> {
        // SAFETY: the device's live stream.
        let ptr = unsafe {
            cudarc::driver::result::malloc_async(
                stream as cudarc::driver::sys::CUstream,
                bytes.max(1),
            )
        }
        .map_err(driver(0, "allocating collective scratch memory"))?;
        Ok(Scratch { ptr, stream })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: allocated on this stream; freed after the work queued.
        let _ = unsafe {
            cudarc::driver::result::free_async(
                self.ptr,
                self.stream as cudarc::driver::sys::CUstream,
            )
        };
    }
}

/// An NCCL group around `f` (ended whether or not `f` succeeded).
fn grouped(f: impl FnOnce() -> Result<(), NcclError>) -> Result<(), NcclError> {
    result::group_start().map_err(nccl("ncclGroupStart"))?;
    let issued = f();
    let ended = result::group_end().map_err(nccl("ncclGroupEnd"));
    issued?;
    ended.map(|_| ())
}

/// Enqueues device `place.me`'s part of `desc` on `stream` (see the module
/// docs for each kind). Every member of the group must enqueue its part.
///
/// # Safety
/// The buffers are live device memory of the given sizes; `stream` is a
/// live stream of the device.
pub unsafe fn enqueue(
    desc: &CollectiveDesc,
    place: &Place,
    comms: &NcclComms,
    stream: hlox_ffi::CUstream,
    b: &Buffers<'_>,
) -> Result<(), NcclError> {
    let stream = stream as sys::cudaStream_t;
    let me = place.me;
    let invalid = |message: String| NcclError::Invalid {
        collective: desc.name.clone(),
        message,
    };
    let vp = |p: u64| p as usize as *mut c_void;
    let bytes = sys::ncclDataType_t::ncclUint8;
    let es = desc.ty.byte_size();
    let group = || -> Result<(&[i64], usize), NcclError> {
        desc.groups
            .iter()
            .find_map(|g| {
                g.iter()
                    .position(|&d| d == me as i64)
                    .map(|p| (g.as_slice(), p))
            })
            .ok_or_else(|| invalid(format!("device {me} is in none of its replica groups")))
    };
    let one = |v: &[u64]| -> Result<u64, NcclError> {
        v.first()
            .copied()
            .ok_or_else(|| invalid("a buffer is missing".into()))
    };
    let (in_len, out_len) = (
        b.in_lens.first().copied().unwrap_or(0),
        b.out_lens.first().copied().unwrap_or(0),
    );
    // A group of one: the result is the operand (or its part).
    let copy = |dst: u64, src: u64, n: usize| -> Result<(), NcclError> {
        if n == 0 {
            return Ok(());
        }
        // SAFETY: live buffers of n bytes or more.
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                dst,
                src,
                n,
                stream as cudarc::driver::sys::CUstream,
            )
        }
        .map_err(driver(me, "a device copy"))
    };
    let dt = || {
        nccl_type(desc.ty).ok_or_else(|| NcclError::Unsupported {
            collective: desc.name.clone(),
            why: format!("{} elements", desc.ty.name()),
        })
    };
    let op = |r: NcclReduce| match r {
        NcclReduce::Sum => sys::ncclRedOp_t::ncclSum,
        NcclReduce::Prod => sys::ncclRedOp_t::ncclProd,
        NcclReduce::Max => sys::ncclRedOp_t::ncclMax,
        NcclReduce::Min => sys::ncclRedOp_t::ncclMin,
    };
    match &desc.kind {
        CollectiveKind::ReplicaId | CollectiveKind::PartitionId => {
            let parts = place.topology.partitions.max(1) as usize;
            let v = if matches!(desc.kind, CollectiveKind::ReplicaId) {
                me / parts
            } else {
                me % parts
            } as u32;
            let out = one(b.outs)?;
            // SAFETY: a 4-byte result; a copy from pageable memory has read
            // its source when the call returns.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(
                    out,
                    &v.to_ne_bytes(),
                    stream as cudarc::driver::sys::CUstream,
                )
            }
            .map_err(driver(me, "writing the device's id"))
        }
        CollectiveKind::AllReduce(r) => {
            let (g, p) = group()?;
            let Some(comm) = comms.of_group(desc, g, p)? else {
                for (k, (&i, &o)) in b.ins.iter().zip(b.outs).enumerate() {
                    copy(o, i, b.in_lens[k])?;
                }
                return Ok(());
            };
            let (dt, op) = (dt()?, op(reduce_op(desc, *r)?));
            grouped(|| {
                for (k, (&i, &o)) in b.ins.iter().zip(b.outs).enumerate() {
                    // SAFETY: as enqueue's caller promises.
                    unsafe {
                        result::all_reduce(
                            vp(i),
                            vp(o),
                            b.in_lens[k] / es.max(1),
                            dt,
                            op,
                            comm,
                            stream,
                        )
                    }
                    .map_err(nccl("ncclAllReduce"))?;
                }
                Ok(())
            })
        }
        CollectiveKind::AllGather { dim } => {
            let (g, p) = group()?;
            let (src, dst) = (one(b.ins)?, one(b.outs)?);
            let Some(comm) = comms.of_group(desc, g, p)? else {
                return copy(dst, src, in_len);
            };
            let dims = &desc.operands[0];
            let (outer, chunk) = split(dims, *dim, es).map_err(invalid)?;
            let gather = |into: u64| {
                // SAFETY: `into` holds g.len() contributions.
                unsafe { result::all_gather(vp(src), vp(into), in_len, bytes, comm, stream) }
                    .map(|_| ())
                    .map_err(nccl("ncclAllGather"))
            };
            if outer <= 1 {
                return gather(dst);
            }
            // Rank-ordered blocks, then each member's block laid out along
            // `dim`: out[o][j] = block j's row o.
            let scratch = Scratch::new(stream, out_len)?;
            gather(scratch.ptr)?;
            // SAFETY: rows inside the scratch and the result.
            unsafe {
                copy_strided(
                    stream,
                    dst,
                    scratch.ptr,
                    &unpack_blocks(g.len(), outer, chunk),
                )
            }
        }
        CollectiveKind::ReduceScatter { dim, reduce } => {
            let (g, p) = group()?;
            let (src, dst) = (one(b.ins)?, one(b.outs)?);
            let dims = &desc.operands[0];
            let (outer, chunk) = split(dims, *dim, es).map_err(invalid)?;
            let parts = g.len();
            if dims[*dim as usize] % parts as i64 != 0 {
                return Err(invalid(format!(
                    "dimension {dim} of {dims:?} does not split into {parts} parts"
                )));
            }
            let piece = chunk / parts;
            let Some(comm) = comms.of_group(desc, g, p)? else {
                return copy(dst, src, in_len);
            };
            let (dt, op) = (dt()?, op(reduce_op(desc, *reduce)?));
            let scatter = |from: u64| {
                // SAFETY: `from` holds parts x out_len bytes.
                unsafe {
                    result::reduce_scatter(
                        vp(from),
                        vp(dst),
                        out_len / es.max(1),
                        dt,
                        op,
                        comm,
                        stream,
                    )
                }
                .map(|_| ())
                .map_err(nccl("ncclReduceScatter"))
            };
            if outer <= 1 {
                return scatter(src);
            }
            // Pack part j of every row into block j: NCCL scatters blocks.
            let scratch = Scratch::new(stream, in_len)?;
            // SAFETY: rows inside the operand and the scratch.
            unsafe { copy_strided(stream, scratch.ptr, src, &pack_blocks(parts, outer, piece))? };
            scatter(scratch.ptr)
        }
        CollectiveKind::AllToAll { split: Some(dim) } => {
            let (g, p) = group()?;
            let (src, dst) = (one(b.ins)?, one(b.outs)?);
            let Some(comm) = comms.of_group(desc, g, p)? else {
                return copy(dst, src, in_len);
            };
            let dims = &desc.operands[0];
            let (outer, chunk) = split(dims, *dim, es).map_err(invalid)?;
            let parts = g.len();
            if dims[*dim as usize] % parts as i64 != 0 {
                return Err(invalid(format!(
                    "dimension {dim} of {dims:?} does not split into {parts} parts"
                )));
            }
            let piece = chunk / parts;
            let block = outer * piece;
            // Block j of `send` is this device's piece j of every row; block
            // j of `recv` is member j's piece p of every row.
            let send = Scratch::new(stream, in_len)?;
            let recv = Scratch::new(stream, in_len)?;
            // SAFETY: rows inside the operand and the scratch.
            unsafe { copy_strided(stream, send.ptr, src, &pack_blocks(parts, outer, piece))? };
            grouped(|| {
                for j in 0..parts {
                    let off = (j * block) as u64;
                    // SAFETY: blocks inside the scratch buffers.
                    unsafe {
                        result::send(vp(send.ptr + off), block, bytes, j as i32, comm, stream)
                            .map_err(nccl("ncclSend"))?;
                        result::recv(vp(recv.ptr + off), block, bytes, j as i32, comm, stream)
                            .map_err(nccl("ncclRecv"))?;
                    }
                }
                Ok(())
            })?;
            // SAFETY: rows inside the scratch and the result.
            unsafe { copy_strided(stream, dst, recv.ptr, &unpack_blocks(parts, outer, piece)) }
        }
        CollectiveKind::AllToAll { split: None } => {
            let (g, p) = group()?;
            if b.ins.len() != g.len() || b.outs.len() != g.len() {
                return Err(invalid(format!(
                    "a tuple all-to-all of {} operands in groups of {}",
                    b.ins.len(),
                    g.len()
                )));
            }
            let Some(comm) = comms.of_group(desc, g, p)? else {
                return copy(b.outs[0], b.ins[0], b.in_lens[0]);
            };
            grouped(|| {
                for j in 0..g.len() {
                    // SAFETY: operand j goes to member j; result j comes
                    // from member j (operand p there), of equal sizes.
                    unsafe {
                        result::send(vp(b.ins[j]), b.in_lens[j], bytes, j as i32, comm, stream)
                            .map_err(nccl("ncclSend"))?;
                        result::recv(vp(b.outs[j]), b.out_lens[j], bytes, j as i32, comm, stream)
                            .map_err(nccl("ncclRecv"))?;
                    }
                }
                Ok(())
            })
        }
        CollectiveKind::Permute { pairs } => {
            let (src, dst) = (one(b.ins)?, one(b.outs)?);
            let me = me as i64;
            let targeted = pairs.iter().any(|&(_, t)| t == me);
            if !targeted {
                // SAFETY: the result holds out_len bytes.
                unsafe {
                    cudarc::driver::result::memset_d8_async(
                        dst,
                        0,
                        out_len,
                        stream as cudarc::driver::sys::CUstream,
                    )
                }
                .map_err(driver(me as usize, "zeroing an untargeted permute result"))?;
            }
            if comms.devices == 1 {
                if pairs.contains(&(0, 0)) {
                    copy(dst, src, in_len)?;
                }
                return Ok(());
            }
            let comm = comms.world[me as usize].0;
            grouped(|| {
                for &(s, t) in pairs {
                    // SAFETY: whole operand to whole result.
                    unsafe {
                        if s == me {
                            result::send(vp(src), in_len, bytes, t as i32, comm, stream)
                                .map_err(nccl("ncclSend"))?;
                        }
                        if t == me {
                            result::recv(vp(dst), out_len, bytes, s as i32, comm, stream)
                                .map_err(nccl("ncclRecv"))?;
                        }
                    }
                }
                Ok(())
            })
        }
        CollectiveKind::Broadcast => {
            let (g, p) = group()?;
            let (src, dst) = (one(b.ins)?, one(b.outs)?);
            let Some(comm) = comms.of_group(desc, g, p)? else {
                return copy(dst, src, in_len);
            };
            // SAFETY: whole operand to whole result, root the group's first.
            unsafe { result::broadcast(vp(src), vp(dst), in_len, bytes, 0, comm, stream) }
                .map(|_| ())
                .map_err(nccl("ncclBroadcast"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(kind: CollectiveKind, ty: ElementType, dims: Vec<i64>) -> CollectiveDesc {
        CollectiveDesc {
            name: "c".into(),
            kind,
            ty,
            operands: vec![dims],
            groups: vec![vec![0, 1, 2, 3]],
        }
    }

    #[test]
    fn reductions_nccl_has_and_reasons_for_the_rest() {
        let ok = [
            (ReduceKind::Add, ElementType::F32, NcclReduce::Sum),
            (ReduceKind::Mul, ElementType::Bf16, NcclReduce::Prod),
            (ReduceKind::Max, ElementType::F16, NcclReduce::Max),
            (ReduceKind::Or, ElementType::Pred, NcclReduce::Max),
            (ReduceKind::And, ElementType::Pred, NcclReduce::Min),
        ];
        for (r, ty, want) in ok {
            let d = desc(CollectiveKind::AllReduce(r), ty, vec![2]);
            assert_eq!(reduce_op(&d, r).unwrap(), want, "{r:?} of {ty:?}");
        }
        let refused = [
            (ReduceKind::Xor, ElementType::S32, "xor reduction of s32"),
            (ReduceKind::And, ElementType::U32, "and reduction of u32"),
            (ReduceKind::Add, ElementType::S16, "s16 elements"),
        ];
        for (r, ty, why) in refused {
            let d = desc(CollectiveKind::AllReduce(r), ty, vec![2]);
            let e = check(&d).unwrap_err().to_string();
            assert!(e.contains(why), "`{why}` not in: {e}");
        }
        let bad_dim = desc(
            CollectiveKind::AllGather { dim: 2 },
            ElementType::F32,
            vec![2, 3],
        );
        let e = check(&bad_dim).unwrap_err().to_string();
        assert!(e.contains("dimension 2 out of range for rank 2"), "{e}");
        assert_eq!(split(&[2, 3, 4], 1, 4).unwrap(), (2, 48));
    }

    /// Applies strided copies on host memory (what cuMemcpy2DAsync does).
    fn apply(dst: &mut [u8], src: &[u8], copies: &[Strided]) {
        for s in copies {
            for r in 0..s.height {
                let (d, f) = (s.dst + r * s.dpitch, s.src + r * s.spitch);
                dst[d..d + s.width].copy_from_slice(&src[f..f + s.width]);
            }
        }
    }

    /// `desc` on `n` threads through the Host's collective engine (the
    /// reference the emulation runs): every device's result.
    fn host_engine(
        n: usize,
        desc: &CollectiveDesc,
        inputs: &[Vec<u8>],
        out: usize,
    ) -> Vec<Vec<u8>> {
        use hlox_cpu_runtime::collectives::{run_collective, with_device, InProcess};
        let comm: Arc<dyn hlox_cpu_runtime::collectives::Communicator> =
            Arc::new(InProcess::new(n, std::time::Duration::from_secs(20)));
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..n)
                .map(|rank| {
                    let comm = comm.clone();
                    s.spawn(move || {
                        let ctx = DeviceContext {
                            rank,
                            topology: Topology {
                                replicas: 1,
                                partitions: n as i64,
                            },
                            comm,
                        };
                        let mut o = vec![0u8; out];
                        with_device(ctx, || {
                            run_collective(desc, &[&inputs[rank]], &mut [&mut o])
                        })
                        .unwrap();
                        o
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    /// The layouts of the GPU path (NCCL's blocks in rank order, the
    /// strided copies around them) give the Host engine's results for
    /// all-gather, reduce-scatter and all-to-all along a middle dimension
    /// (u8 elements: the copies move bytes).
    #[test]
    fn strided_layouts_around_nccl_match_the_host_engine() {
        let n = 3;
        let dims = vec![2i64, 6, 2];
        let (outer, chunk) = split(&dims, 1, 1).unwrap();
        let len = outer * chunk;
        let inputs: Vec<Vec<u8>> = (0..n)
            .map(|d| (0..len).map(|i| (d * 50 + i * 3) as u8).collect())
            .collect();
        let desc = |kind| CollectiveDesc {
            name: "c".into(),
            kind,
            ty: ElementType::U8,
            operands: vec![dims.clone()],
            groups: vec![(0..n as i64).collect()],
        };
        // all-gather: NCCL concatenates the contributions, then unpack.
        let gathered: Vec<u8> = inputs.concat();
        let mut out = vec![0u8; len * n];
        apply(&mut out, &gathered, &unpack_blocks(n, outer, chunk));
        let want = host_engine(
            n,
            &desc(CollectiveKind::AllGather { dim: 1 }),
            &inputs,
            len * n,
        );
        assert!(want.iter().all(|w| *w == out), "all-gather");
        let piece = chunk / n;
        let packed: Vec<Vec<u8>> = inputs
            .iter()
            .map(|x| {
                let mut p = vec![0u8; len];
                apply(&mut p, x, &pack_blocks(n, outer, piece));
                p
            })
            .collect();
        let block = outer * piece;
        let rs = desc(CollectiveKind::ReduceScatter {
            dim: 1,
            reduce: ReduceKind::Add,
        });
        let want = host_engine(n, &rs, &inputs, block);
        let a2a = host_engine(
            n,
            &desc(CollectiveKind::AllToAll { split: Some(1) }),
            &inputs,
            len,
        );
        for d in 0..n {
            // reduce-scatter: NCCL gives rank d the sum of every block d.
            let got: Vec<u8> = (0..block)
                .map(|i| {
                    packed
                        .iter()
                        .fold(0u8, |a, p| a.wrapping_add(p[d * block + i]))
                })
                .collect();
            assert_eq!(got, want[d], "reduce-scatter on device {d}");
            // all-to-all: block j of d's receives is member j's block d.
            let recv: Vec<u8> = (0..n)
                .flat_map(|j| packed[j][d * block..(d + 1) * block].to_vec())
                .collect();
            let mut out = vec![0u8; len];
            apply(&mut out, &recv, &unpack_blocks(n, outer, piece));
            assert_eq!(out, a2a[d], "all-to-all on device {d}");
        }
    }

    #[test]
    fn opening_without_a_gpu_or_nccl_says_which_is_missing() {
        assert!(matches!(NcclComms::open(0, &[]), Err(NcclError::NoDevices)));
        match NcclComms::open(1, &[]) {
            Err(NcclError::NoDriver) => assert!(!crate::runtime::driver_present()),
            Err(NcclError::NoNccl) => assert!(!nccl_present()),
            Err(e) => panic!("{e}"),
            // A GPU with NCCL: a one-rank communicator.
            Ok(c) => assert_eq!(c.devices(), 1),
        }
    }
}
