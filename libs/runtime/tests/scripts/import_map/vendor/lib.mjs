export default "lib";
