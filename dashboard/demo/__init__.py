"""Demo mode: a deterministic fictional data set and an HTTP simulator of the service over it."""
