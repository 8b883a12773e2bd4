//! Collectives across GPUs through NCCL (cudarc's `nccl`, the `nccl`
//! feature of this crate): one device per GPU in one process, each with its
//! own stream, every collective one NCCL call per device inside an NCCL
//! group (one thread drives every GPU, as `ncclCommInitAll` expects).
//!
//! Two layers:
//! - [`plan`] maps a collective, as hlox's SPMD expansion describes it
//!   ([`CollectiveDesc`]), to the NCCL call that computes it
//!   ([`NcclCall`]), or says why NCCL cannot run it yet. It needs no GPU.
//! - [`NcclDevices`] owns the communicators and runs an [`NcclCall`] on
//!   every device's buffers. Opening it checks for libcuda and libnccl
//!   first ([`NcclDevices::open`]), so a machine without them gets an error
//!   saying which, never a panic.
//!
//! Not yet: the CUDA backend does not compile SPMD programs for several
//! devices, so nothing calls this from `hlox run`; and every call here has
//! only been compiled and planned, not run, until a GPU is lent (see
//! docs/multi-device.md).

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use cudarc::nccl::safe::{Comm, NcclType, ReduceOp};
use hlox_hlo::sharding::{CollectiveDesc, CollectiveKind, ReduceKind};
use hlox_hlo::ElementType;
use std::sync::Arc;

/// Why NCCL cannot run a collective or a run failed.
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
    #[error("{want} GPU device(s) asked for, but this machine has {have}")]
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
    #[error("collective {collective}: NCCL does not run it yet: {why}")]
    Unsupported { collective: String, why: String },
    #[error("collective {collective}: {got} devices' buffers for {want} devices")]
    DeviceCount {
        collective: String,
        got: usize,
        want: usize,
    },
    #[error(
        "collective {collective}: device {device} gives {got} bytes, but the collective takes {want}"
    )]
    Size {
        collective: String,
        device: usize,
        got: usize,
        want: usize,
    },
}

/// NCCL's reduction for an HLO one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcclReduce {
    Sum,
    Prod,
    Max,
    Min,
}

/// One NCCL call over every device of the communicator, on `count`
/// elements of type `ty` per device (the send buffer's count).
#[derive(Clone, Debug, PartialEq)]
pub enum NcclCall {
    AllReduce {
        ty: ElementType,
        count: usize,
        op: NcclReduce,
    },
    /// Rank order along the leading dimension: NCCL's layout.
    AllGather { ty: ElementType, count: usize },
    /// Each rank gets its `count / devices` elements of the reduction.
    ReduceScatter {
        ty: ElementType,
        count: usize,
        op: NcclReduce,
    },
    Broadcast {
        ty: ElementType,
        count: usize,
        root: usize,
    },
}

impl NcclCall {
    fn ty_count(&self) -> (ElementType, usize) {
        match *self {
            NcclCall::AllReduce { ty, count, .. }
            | NcclCall::AllGather { ty, count }
            | NcclCall::ReduceScatter { ty, count, .. }
            | NcclCall::Broadcast { ty, count, .. } => (ty, count),
        }
    }

    /// Bytes each device contributes and receives.
    pub fn bytes(&self, devices: usize) -> (usize, usize) {
        let (ty, count) = self.ty_count();
        let es = ty.byte_size();
        match self {
            NcclCall::AllGather { .. } => (count * es, count * es * devices),
            NcclCall::ReduceScatter { .. } => (count * es, count / devices.max(1) * es),
            _ => (count * es, count * es),
        }
    }
}

/// The element types NCCL reduces (f16 and bf16 need cudarc's `f16`).
fn nccl_type(ty: ElementType) -> bool {
    use ElementType as T;
    matches!(
        ty,
        T::F32 | T::F64 | T::S8 | T::S32 | T::S64 | T::U8 | T::U32 | T::U64
    )
}

/// The NCCL call that computes `desc` on `devices` devices, one per rank.
///
/// NCCL's communicator here is every device, so the groups must be all
/// devices in rank order (sub-groups need `ncclCommSplit`: not yet);
/// all-gather and reduce-scatter must split the leading dimension (NCCL
/// concatenates in rank order); permutes and all-to-all need NCCL's
/// send/recv: not yet.
pub fn plan(desc: &CollectiveDesc, devices: usize) -> Result<NcclCall, NcclError> {
    let unsupported = |why: String| NcclError::Unsupported {
        collective: desc.name.clone(),
        why,
    };
    if !nccl_type(desc.ty) {
        return Err(unsupported(format!(
            "{} elements (NCCL here takes f32, f64, s8, s32, s64, u8, u32, u64)",
            desc.ty.name()
        )));
    }
    let whole: Vec<i64> = (0..devices as i64).collect();
    if !matches!(
        desc.kind,
        CollectiveKind::ReplicaId | CollectiveKind::PartitionId
    ) && desc.groups != [whole.clone()]
    {
        return Err(unsupported(format!(
            "replica groups {:?}: the NCCL communicator is all {devices} devices in order \
             ({whole:?}); sub-groups need ncclCommSplit",
            desc.groups
        )));
    }
    let [dims] = desc.operands.as_slice() else {
        return Err(unsupported(format!(
            "{} operands (one NCCL call takes one buffer; variadic collectives are not split yet)",
            desc.operands.len()
        )));
    };
    let count = dims.iter().product::<i64>().max(0) as usize;
    let op = |r: ReduceKind| match r {
        ReduceKind::Add => Ok(NcclReduce::Sum),
        ReduceKind::Mul => Ok(NcclReduce::Prod),
        ReduceKind::Max => Ok(NcclReduce::Max),
        ReduceKind::Min => Ok(NcclReduce::Min),
        other => Err(unsupported(format!(
            "the {} reduction (NCCL has sum, prod, max, min)",
            other.name()
        ))),
    };
    // Leading dimensions before `dim` of size 1: splitting along `dim` is
    // splitting the flat buffer, NCCL's layout.
    let leading = |dim: i64| -> Result<(), NcclError> {
        let d = usize::try_from(dim).ok().filter(|&d| d < dims.len());
        match d {
            Some(d) if dims[..d].iter().all(|&x| x == 1) => Ok(()),
            _ => Err(unsupported(format!(
                "dimension {dim} of {dims:?} is not the leading one (NCCL concatenates whole \
                 buffers in rank order; a transposing copy around it is not written yet)"
            ))),
        }
    };
    match &desc.kind {
        CollectiveKind::AllReduce(r) => Ok(NcclCall::AllReduce {
            ty: desc.ty,
            count,
            op: op(*r)?,
        }),
        CollectiveKind::AllGather { dim } => {
            leading(*dim)?;
            Ok(NcclCall::AllGather { ty: desc.ty, count })
        }
        CollectiveKind::ReduceScatter { dim, reduce } => {
            leading(*dim)?;
            if devices == 0 || !count.is_multiple_of(devices) {
                return Err(unsupported(format!(
                    "{count} elements do not split into {devices} parts"
                )));
            }
            Ok(NcclCall::ReduceScatter {
                ty: desc.ty,
                count,
                op: op(*reduce)?,
            })
        }
        CollectiveKind::Broadcast => Ok(NcclCall::Broadcast {
            ty: desc.ty,
            count,
            root: 0,
        }),
        CollectiveKind::Permute { .. } | CollectiveKind::AllToAll { .. } => Err(unsupported(
            "collective-permute and all-to-all need NCCL's send/recv, not wired yet".into(),
        )),
        CollectiveKind::ReplicaId | CollectiveKind::PartitionId => Err(unsupported(
            "replica-id and partition-id are constants of each device's program, not NCCL calls"
                .into(),
        )),
    }
}

/// N GPUs of this process, one NCCL communicator each (`ncclCommInitAll`),
/// each with its own stream.
pub struct NcclDevices {
    streams: Vec<Arc<CudaStream>>,
    comms: Vec<Comm>,
}

fn driver(device: usize, what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> NcclError {
    move |e| NcclError::Driver {
        device,
        what,
        message: e.to_string(),
    }
}

fn nccl(what: &'static str) -> impl Fn(cudarc::nccl::result::NcclError) -> NcclError {
    move |e| NcclError::Nccl {
        what,
        message: format!("{e:?}"),
    }
}

/// Whether libnccl can be loaded on this machine.
pub fn nccl_present() -> bool {
    // SAFETY: only tries to dlopen libnccl; nothing is called.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

impl NcclDevices {
    /// Opens GPUs `0..devices` with a communicator over all of them. One
    /// GPU is a one-rank communicator (every collective is a copy).
    /// Without libcuda or libnccl this says which is missing.
    pub fn open(devices: usize) -> Result<NcclDevices, NcclError> {
        if devices == 0 {
            return Err(NcclError::NoDevices);
        }
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
        let mut streams = Vec::with_capacity(devices);
        for d in 0..devices {
            let ctx = CudaContext::new(d).map_err(driver(d, "opening the device"))?;
            streams.push(ctx.new_stream().map_err(driver(d, "creating a stream"))?);
        }
        let comms = Comm::from_devices(streams.clone()).map_err(nccl("ncclCommInitAll"))?;
        Ok(NcclDevices { streams, comms })
    }

    pub fn devices(&self) -> usize {
        self.streams.len()
    }

    /// Runs `call` with device d's send buffer `inputs[d]` (host bytes,
    /// native order); every device's received bytes. Each buffer is copied
    /// to its GPU on the device's stream, the NCCL calls of all devices are
    /// one NCCL group, and the results are copied back.
    pub fn run(
        &self,
        name: &str,
        call: &NcclCall,
        inputs: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>, NcclError> {
        let n = self.devices();
        let (send, _) = call.bytes(n);
        if inputs.len() != n {
            return Err(NcclError::DeviceCount {
                collective: name.to_string(),
                got: inputs.len(),
                want: n,
            });
        }
        for (d, b) in inputs.iter().enumerate() {
            if b.len() != send {
                return Err(NcclError::Size {
                    collective: name.to_string(),
                    device: d,
                    got: b.len(),
                    want: send,
                });
            }
        }
        let (ty, _) = call.ty_count();
        use ElementType as T;
        match ty {
            T::F32 => self.run_typed::<f32>(call, inputs),
            T::F64 => self.run_typed::<f64>(call, inputs),
            T::S8 => self.run_typed::<i8>(call, inputs),
            T::S32 => self.run_typed::<i32>(call, inputs),
            T::S64 => self.run_typed::<i64>(call, inputs),
            T::U8 => self.run_typed::<u8>(call, inputs),
            T::U32 => self.run_typed::<u32>(call, inputs),
            T::U64 => self.run_typed::<u64>(call, inputs),
            other => Err(NcclError::Unsupported {
                collective: name.to_string(),
                why: format!("{} elements", other.name()),
            }),
        }
    }

    fn run_typed<E>(&self, call: &NcclCall, inputs: &[&[u8]]) -> Result<Vec<Vec<u8>>, NcclError>
    where
        E: NcclType + DeviceRepr + ValidAsZeroBits + Copy + host_bytes::Bytes,
    {
        let n = self.devices();
        let (send_bytes, recv_bytes) = call.bytes(n);
        let es = std::mem::size_of::<E>();
        let mut sends: Vec<CudaSlice<E>> = Vec::with_capacity(n);
        let mut recvs: Vec<CudaSlice<E>> = Vec::with_capacity(n);
        for (d, s) in self.streams.iter().enumerate() {
            let host: Vec<E> = inputs[d].chunks_exact(es).map(E::from_ne).collect();
            debug_assert_eq!(host.len() * es, send_bytes);
            sends.push(
                s.clone_htod(&host)
                    .map_err(driver(d, "copying to the device"))?,
            );
            recvs.push(
                s.alloc_zeros::<E>(recv_bytes / es)
                    .map_err(driver(d, "allocating the result"))?,
            );
        }
        let reduce = |op: NcclReduce| match op {
            NcclReduce::Sum => ReduceOp::Sum,
            NcclReduce::Prod => ReduceOp::Prod,
            NcclReduce::Max => ReduceOp::Max,
            NcclReduce::Min => ReduceOp::Min,
        };
        cudarc::nccl::result::group_start().map_err(nccl("ncclGroupStart"))?;
        let mut issued = Ok(());
        for (d, comm) in self.comms.iter().enumerate() {
            let r = match *call {
                NcclCall::AllReduce { op, .. } => {
                    comm.all_reduce(&sends[d], &mut recvs[d], &reduce(op))
                }
                NcclCall::AllGather { .. } => comm.all_gather(&sends[d], &mut recvs[d]),
                NcclCall::ReduceScatter { op, .. } => {
                    comm.reduce_scatter(&sends[d], &mut recvs[d], &reduce(op))
                }
                NcclCall::Broadcast { root, .. } => {
                    comm.broadcast(Some(&sends[d]), &mut recvs[d], root as i32)
                }
            };
            if let Err(e) = r {
                issued = Err(nccl("enqueuing the collective")(e));
                break;
            }
        }
        // The group ends whether or not every call was enqueued.
        let ended = cudarc::nccl::result::group_end().map_err(nccl("ncclGroupEnd"));
        issued?;
        ended?;
        let mut out = Vec::with_capacity(n);
        for (d, s) in self.streams.iter().enumerate() {
            let host: Vec<E> = s
                .clone_dtoh(&recvs[d])
                .map_err(driver(d, "copying the result back"))?;
            let mut bytes = vec![0u8; host.len() * es];
            for (v, c) in host.iter().zip(bytes.chunks_exact_mut(es)) {
                v.to_ne(c);
            }
            out.push(bytes);
        }
        Ok(out)
    }
}

/// Native-order byte conversions of NCCL's element types.
mod host_bytes {
    pub trait Bytes: Sized {
        fn from_ne(b: &[u8]) -> Self;
        fn to_ne(&self, b: &mut [u8]);
    }
    macro_rules! bytes {
        ($($t:ty),*) => {$(
            impl Bytes for $t {
                fn from_ne(b: &[u8]) -> Self {
                    let mut a = [0u8; std::mem::size_of::<$t>()];
                    a.copy_from_slice(b);
                    <$t>::from_ne_bytes(a)
                }
                fn to_ne(&self, b: &mut [u8]) {
                    b.copy_from_slice(&self.to_ne_bytes());
                }
            }
        )*};
    }
    bytes!(f32, f64, i8, i32, i64, u8, u32, u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(
        kind: CollectiveKind,
        ty: ElementType,
        dims: Vec<i64>,
        groups: Vec<Vec<i64>>,
    ) -> CollectiveDesc {
        CollectiveDesc {
            name: "c".into(),
            kind,
            ty,
            operands: vec![dims],
            groups,
        }
    }

    #[test]
    fn plans_for_what_nccl_runs_and_reasons_for_the_rest() {
        let all = vec![vec![0, 1, 2, 3]];
        assert_eq!(
            plan(
                &desc(
                    CollectiveKind::AllReduce(ReduceKind::Add),
                    ElementType::F32,
                    vec![8, 2],
                    all.clone()
                ),
                4
            )
            .unwrap(),
            NcclCall::AllReduce {
                ty: ElementType::F32,
                count: 16,
                op: NcclReduce::Sum
            }
        );
        let g = plan(
            &desc(
                CollectiveKind::AllGather { dim: 1 },
                ElementType::S32,
                vec![1, 3],
                all.clone(),
            ),
            4,
        )
        .unwrap();
        assert_eq!(
            g,
            NcclCall::AllGather {
                ty: ElementType::S32,
                count: 3
            }
        );
        assert_eq!(g.bytes(4), (12, 48));
        let rs = plan(
            &desc(
                CollectiveKind::ReduceScatter {
                    dim: 0,
                    reduce: ReduceKind::Max,
                },
                ElementType::F64,
                vec![8],
                all.clone(),
            ),
            4,
        )
        .unwrap();
        assert_eq!(rs.bytes(4), (64, 16));
        // What NCCL does not run, and the words of the reason.
        let add = CollectiveKind::AllReduce(ReduceKind::Add);
        let refused = [
            (
                CollectiveKind::AllGather { dim: 1 },
                ElementType::F32,
                vec![2, 3],
                all.clone(),
                "not the leading one",
            ),
            (
                add.clone(),
                ElementType::F32,
                vec![2],
                vec![vec![0, 1], vec![2, 3]],
                "ncclCommSplit",
            ),
            (
                CollectiveKind::AllReduce(ReduceKind::Xor),
                ElementType::S32,
                vec![2],
                all.clone(),
                "xor",
            ),
            (add, ElementType::F16, vec![2], all.clone(), "f16 elements"),
            (
                CollectiveKind::Permute {
                    pairs: vec![(0, 1)],
                },
                ElementType::F32,
                vec![2],
                all,
                "send/recv",
            ),
        ];
        for (kind, ty, dims, groups, reason) in refused {
            let why = plan(&desc(kind, ty, dims, groups), 4)
                .unwrap_err()
                .to_string();
            assert!(why.contains(reason), "`{reason}` not in: {why}");
        }
    }

    #[test]
    fn opening_without_a_gpu_or_nccl_says_which_is_missing() {
        assert!(matches!(NcclDevices::open(0), Err(NcclError::NoDevices)));
        match NcclDevices::open(1) {
            Err(NcclError::NoDriver) => assert!(!crate::runtime::driver_present()),
            Err(NcclError::NoNccl) => assert!(!nccl_present()),
            Err(e @ NcclError::TooFewGpus { .. }) => panic!("a driver without a GPU: {e}"),
            Err(e) => panic!("{e}"),
            // A GPU with NCCL: one rank, an all-reduce is a copy.
            Ok(d) => {
                let call = NcclCall::AllReduce {
                    ty: ElementType::F32,
                    count: 2,
                    op: NcclReduce::Sum,
                };
                let x: Vec<u8> = [1.5f32, -2.0]
                    .iter()
                    .flat_map(|v| v.to_ne_bytes())
                    .collect();
                assert_eq!(d.run("ar", &call, &[&x]).unwrap(), vec![x]);
            }
        }
    }
}
