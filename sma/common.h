/* placeholder: common */
