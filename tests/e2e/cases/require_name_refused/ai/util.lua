return {name = "util"}
