/* placeholder: sc */
