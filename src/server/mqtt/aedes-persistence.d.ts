// aedes-persistence's in-memory persistence as a class (its package main wraps it in callbacks);
// its own types live under types/, which a deep import does not find.
declare module "aedes-persistence/asyncPersistence.js" {
  import MemoryPersistence from "aedes-persistence/types/asyncPersistence";
  export default MemoryPersistence;
}

// aedes-persistence-redis's persistence as a class; the package ships no types.
declare module "aedes-persistence-redis/asyncPersistence.js" {
  import MemoryPersistence from "aedes-persistence/types/asyncPersistence";
  export default class RedisPersistence extends MemoryPersistence {
    constructor(options: { conn: unknown; maxSessionDelivery?: number });
  }
}
