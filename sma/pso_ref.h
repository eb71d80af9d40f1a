/* placeholder: pso_ref */
