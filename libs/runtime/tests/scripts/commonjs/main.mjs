import "cjs-only";
