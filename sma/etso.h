/* placeholder: etso */
