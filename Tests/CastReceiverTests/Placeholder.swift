// Placeholder so the package graph loads; replaced by the module's sources.
