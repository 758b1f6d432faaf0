export default "lib-scoped";
