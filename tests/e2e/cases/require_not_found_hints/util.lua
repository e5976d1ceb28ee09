return {x = 1}
