//! TODO(helper): npy
