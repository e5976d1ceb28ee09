return {v="bmod"}
