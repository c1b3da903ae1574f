import { readFile } from "node:fs/promises";

// tRPC's published build carries Babel's `_objectSpread2` helper for every `{ ...a, b }` of its
// source: `_objectSpread2(_objectSpread2({}, a), {}, { b })`. Its key-by-key defineProperty loop
// was ~8 % of send-message's main-thread CPU (every middleware level spreads its options and the
// context). Each call site passes a fresh object first and uses the returned one, and none spreads
// an accessor, so native spread gives the same objects. The bundle's copy is replaced by it; the
// build stops if the helper is not found as expected (a tRPC update changed it: look again).
const HELPER =
  /function _objectSpread2\(e\) \{\n\tfor \(var r = 1; r < arguments\.length; r\+\+\) \{[\s\S]*?\n\treturn e;\n\}/;

export const NATIVE_SPREAD = `function _objectSpread2(e) {
\tfor (var r = 1; r < arguments.length; r++) {
\t\tvar t = arguments[r];
\t\tif (t != null) e = { ...e, ...t };
\t}
\treturn e;
}`;

/** esbuild plugin: tRPC's `_objectSpread2` as native spread (see above). */
export const nativeSpread = {
  name: "trpc-native-spread",
  setup(build) {
    build.onLoad(
      { filter: /@trpc[\\/]server[\\/]dist[\\/]getErrorShape-[^\\/]+\.mjs$/ },
      async (args) => {
        const source = await readFile(args.path, "utf8");
        const found = source.match(new RegExp(HELPER, "g")) ?? [];
        if (found.length !== 1) {
          throw new Error(
            `${args.path}: expected one Babel _objectSpread2 helper, found ${found.length}`,
          );
        }
        return { contents: source.replace(HELPER, NATIVE_SPREAD), loader: "js" };
      },
    );
  },
};
