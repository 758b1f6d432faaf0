import lib from "lib"; export default `scope sees ${lib}`;
