//! TODO(helper): verifier
