import { missing } from "./lib/util";
