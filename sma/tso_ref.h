/* placeholder: tso_ref */
