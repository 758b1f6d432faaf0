export default "lib/extra";
