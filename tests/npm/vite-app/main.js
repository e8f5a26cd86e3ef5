// A bundled consumer: Vite resolves the package's "default" export condition and emits the .wasm as an asset.
import { selectMechanism, binPack, gpuModels } from "@examlops/gpu-sharing";

window.__result = {
  choice: selectMechanism({ name: "JPCP", fraction: 0.25 }, { supportsMig: true }),
  pack: binPack([{ name: "x", migProfile: "3g.20gb" }, { name: "y", migProfile: "2g.10gb" }, { name: "z", migProfile: "2g.10gb" }], 1, { supportsMig: true }),
  models: gpuModels().length,
};
