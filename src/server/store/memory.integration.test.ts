import { MemoryStore } from "./memory";
import { storeContract } from "./store.contract";

storeContract("MemoryStore", () => new MemoryStore());
