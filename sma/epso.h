/* placeholder: epso */
