import { benchMqtt } from "./mqtt";
const r = await benchMqtt({ log: (m) => console.error(m) });
console.log(JSON.stringify(r.rows.map((x) => [x.measure, x.result, x.nodeRed]), null, 1));
